import { existsSync } from 'node:fs';
import { request } from 'node:http';

/** Whether a Docker engine answers (DOCKER_HOST over TCP, or the default unix socket). */
export async function dockerAnswers(timeoutMs = 1_000): Promise<boolean> {
  const host = process.env.DOCKER_HOST;
  let target: { host: string; port: number } | { socketPath: string };
  if (host?.startsWith('tcp://')) {
    const url = new URL(host.replace('tcp://', 'http://'));
    target = { host: url.hostname, port: Number(url.port) };
  } else {
    const socketPath = host?.replace('unix://', '') ?? '/var/run/docker.sock';
    if (!existsSync(socketPath)) return false;
    target = { socketPath };
  }
  return new Promise((resolve) => {
    const req = request({ ...target, path: '/_ping', method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
    req.end();
  });
}
