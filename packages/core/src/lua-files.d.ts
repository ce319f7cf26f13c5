/**
 * A `.lua` file imports as its source text: esbuild's text loader in the bundle
 * (scripts/build.mjs), scripts/lua-as-text.mjs under tsx, a plugin under vitest (vitest.config.ts).
 */
declare module '*.lua' {
  const source: string;
  export default source;
}
