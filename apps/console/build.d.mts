/** Builds the console into `outdir` (index.html and assets/); see build.mjs. */
export function buildConsole(options?: { outdir?: string; minify?: boolean }): Promise<{ outdir: string; files: string[] }>;
