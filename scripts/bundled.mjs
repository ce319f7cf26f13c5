// Third-party packages the bundles carry inside instead of loading from node_modules: a workspace
// needs another major than the copy at the root of node_modules (ipaddr.js 2 for the URL policy,
// while express's proxy-addr pins 1.9 at the root), and a bundle resolves externals from the root.
export const BUNDLED = ['ipaddr.js'];
