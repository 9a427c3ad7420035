// Types of build-state.js (plain JavaScript so bin/pier.js runs it without tsx).
export declare const sourceFolders: string[];
export declare const stampFile: string;
export declare function buildNeeded(root: string): 'missing' | 'stale' | null;
