export function constraintChain(dir: string, options?: { count?: number; sans?: number; excluded?: number }): { key: string; leaf: string; cas: string[]; cert: string; shuffled(): string };
