// Gate patterns run on re2js, a linear-time engine: a pattern such as `^(a+)+$` cannot stall the
// worker however the output is shaped. It has no backreferences or lookarounds, so some
// JavaScript patterns are refused when written.
import { RE2JS } from 're2js';

export type CompiledPattern = { ok: true; test(text: string): boolean } | { ok: false; error: string };

export function compilePattern(source: string): CompiledPattern {
  try {
    const pattern = RE2JS.compile(source);
    return { ok: true, test: (text) => pattern.test(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
