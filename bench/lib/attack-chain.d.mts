export function attackChain(dir: string, options: { keyFile: string; bits?: number; count?: number }): { key: string; leaf: string; cas: string[]; cert: string; shuffled(): string };
