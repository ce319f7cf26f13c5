// Which third-party imports the bundles leave to node_modules. dist/*.mjs resolve packages from
// the root node_modules (/app/node_modules in the image), but a workspace may use another copy of
// a package than the one hoisted to the root (measured: apps/api's busboy 1.6 sat in
// apps/api/node_modules while s3rver's busboy 0.3 held the root, and the bundled api hung on every
// upload over 64 KiB). So a package stays external only when dist/ would load the very copy the
// importing source does; any other is bundled from the copy the source uses.
import { existsSync, realpathSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';

/** The directory of package `name` as Node would find it from `dir`, or undefined. */
export function packageDir(name, dir) {
  for (let at = resolve(dir); ; at = dirname(at)) {
    const manifest = join(at, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) return realpathSync(dirname(manifest));
    if (dirname(at) === at) return undefined;
  }
}

const packageName = (path) => (path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0]);

/** An esbuild plugin: builtins and `declared` packages resolving to the root's copy are external. */
export function externals(declared, root, bundled = new Set()) {
  return {
    name: 'externals',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:') || builtinModules.includes(packageName(args.path))) return { path: args.path, external: true };
        const name = packageName(args.path);
        if (name.startsWith('@relay/') || !declared.has(name)) return undefined;
        const own = packageDir(name, args.resolveDir);
        if (own && own === packageDir(name, root)) return { path: args.path, external: true };
        bundled.add(`${name} (${own})`);
        return undefined;
      });
    },
  };
}
