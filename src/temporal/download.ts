// Fetching one file over HTTP(S) into memory, giving up on a server that does not answer instead of hanging an install.
import http from 'node:http';
import https from 'node:https';

/** How long connecting, and then each silence while answering, may last. */
export const DOWNLOAD_TIMEOUT_MS = 10_000;
/** Release hosts answer with a redirect to where the bytes are (GitHub: one), so a few are followed. */
const MAX_REDIRECTS = 5;
/** A server streaming without end would otherwise fill the memory; the release archives are tens of MB. */
const MAX_BYTES = 512 * 1024 * 1024;

/** The body of the 200 answer at `url` or where it redirects; rejects with one line that says what went wrong. */
export async function download(url: string): Promise<Buffer> {
  let target = new URL(url);
  for (let redirects = 0; ; redirects++) {
    const answer = await get(target);
    if (Buffer.isBuffer(answer)) return answer;
    if (redirects === MAX_REDIRECTS) throw new Error(`${target.host} redirected more than ${MAX_REDIRECTS} times`);
    target = new URL(answer.location, target);
  }
}

function get(target: URL): Promise<Buffer | { location: string }> {
  const client = { 'http:': http, 'https:': https }[target.protocol];
  if (!client) return Promise.reject(new Error(`${target.href} is not an http or https address`));
  return new Promise((resolve, reject) => {
    // The first thing to go wrong is the one reported: destroying the request raises more errors after it.
    let failure: string | undefined;
    const fail = (reason: string) => {
      failure ??= reason;
      request.destroy();
      reject(new Error(failure));
    };
    // No pooled agent: a kept-alive socket would hold the setup process open after the download.
    const request = client.get(target, { agent: false, timeout: DOWNLOAD_TIMEOUT_MS }, (response) => {
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        response.resume();
        resolve({ location });
      } else if (status !== 200) {
        fail(`${target.host} answered HTTP ${status} for ${target.pathname}`);
      } else {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BYTES) fail(`${target.host} sent more than ${MAX_BYTES / 1024 / 1024} MB`);
          else chunks.push(chunk);
        });
        response.on('end', () => resolve(Buffer.concat(chunks)));
        response.on('error', (error) => fail(`${target.host} broke off the answer: ${error.message}`));
      }
    });
    request.on('timeout', () => fail(`${target.host} did not answer within ${DOWNLOAD_TIMEOUT_MS / 1000} s`));
    request.on('error', (error) => fail(`${target.host} could not be reached: ${error.message}`));
  });
}
