/** Debian's nginx (nginx-light) as a reverse proxy with one worker, for the passthrough and scale-out runs. */
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BenchProcess, startProcess } from './processes.js'

export const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx'].find((p) => existsSync(p))

/**
 * One worker proxying to `upstreams` (round-robin, keep-alive), optionally adding an Authorization header;
 * `/health` is answered by the first upstream. Resolves once nginx answers on its port.
 */
export async function startNginx(
  upstreams: readonly string[],
  options: { authorization?: string; workers?: number } = {},
): Promise<BenchProcess> {
  if (!NGINX) throw new Error('nginx is not installed')
  const dir = mkdtempSync(join(tmpdir(), 'unigate-bench-nginx-'))
  // Worker processes run as nobody when nginx starts as root: they must reach their temp folders.
  chmodSync(dir, 0o777)
  const { freePort } = await import('./processes.js')
  const port = await freePort()
  const servers = upstreams.map((u) => `    server ${new URL(u).host};`).join('\n')
  const auth = options.authorization
    ? `      proxy_set_header Authorization "${options.authorization}";\n`
    : ''
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes ${options.workers ?? 1};
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream backends {
${servers}
    keepalive 128;
  }
  server {
    listen 127.0.0.1:${port};
    # nginx closes a client's keep-alive connection after 1,000 requests by default (keepalive_requests,
    # ngx_http_core_module) with "Connection: close"; autocannon ignores that header and writes its next
    # request into the closing socket, which it counts as an error (a few per run once a connection passes
    # 1,000 requests). The load keeps its 32 connections for the whole run, as the other targets see it.
    keepalive_requests 1000000;
    location / {
      proxy_pass http://backends;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffers 16 16k;
${auth}    }
  }
}
`,
  )
  return startProcess(NGINX, ['-p', dir, '-e', `${dir}/error.log`, '-c', `${dir}/nginx.conf`], {}, { port })
}
