export function attackChain(dir: string, options: { keyFile: string; bits?: number; count?: number }): { key: string; cert: string; shuffled(): string };
