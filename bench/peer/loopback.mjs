// Preloaded into the peer gateway (node --import): a server listening on a port with no host
// would take every interface; this keeps it on 127.0.0.1, so a benchmark opens nothing to the
// network. The gateway's own code is not touched.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number') {
    if (typeof args[1] === 'function') args.splice(1, 0, '127.0.0.1');
    else if (args[1] === undefined || args[1] === '0.0.0.0' || args[1] === '::') args[1] = '127.0.0.1';
  } else if (args[0] && typeof args[0] === 'object' && args[0].port !== undefined && !args[0].path) {
    args[0] = { ...args[0], host: '127.0.0.1' };
  }
  return listen.apply(this, args);
};
