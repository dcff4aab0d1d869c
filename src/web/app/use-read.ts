// A read of the API that runs again whenever `version` or the path changes, keeping the last answer meanwhile.
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api';

export interface Read<T> {
  data: T | null;
  error: string | null;
}

export function useRead<T>(path: string, version: number): Read<T> {
  const [read, setRead] = useState<Read<T>>({ data: null, error: null });
  useEffect(() => {
    let current = true;
    getJson<T>(path).then(
      (data) => current && setRead({ data, error: null }),
      (error: Error) => current && setRead((before) => ({ data: before.data, error: error.message })),
    );
    return () => {
      current = false;
    };
  }, [path, version]);
  return read;
}
