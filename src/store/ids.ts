// Entity ids: a readable prefix and 12 random lowercase base36 characters, e.g. loop_k3j9x0q2m1ab.
import { randomInt } from 'node:crypto';

const BASE36_DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 12;

export function newId(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) suffix += BASE36_DIGITS[randomInt(BASE36_DIGITS.length)];
  return `${prefix}_${suffix}`;
}
