/** The trust pools of a corpus directory: each pool's CA-file texts in file-name order. */
export declare function readPools(dir: string): Map<string, string[]>;
