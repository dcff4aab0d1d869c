// The server's API as the pages call it: JSON in and out, a refusal thrown with the service's own message.
export class Refusal extends Error {}

async function answer<T>(response: Response): Promise<T> {
  const body = (await response.json()) as T & { message?: string };
  if (!response.ok) throw new Refusal(body.message ?? `${response.status} ${response.statusText}`);
  return body;
}

export const getJson = async <T>(path: string): Promise<T> => answer<T>(await fetch(path, { credentials: 'same-origin' }));

export const postJson = async <T>(path: string, body: unknown = {}): Promise<T> =>
  answer<T>(
    await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
