export function podmanServiceArgs(dir: string, socketPath: string): string[];
