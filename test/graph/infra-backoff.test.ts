// The waits between a node's infra retries: the loop's first wait, doubled before each one after, never over a minute.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { infraBackoffMs } from '../../src/graph/infra-failures';

it('waits 5 s, 10 s, 20 s… by default, at most a minute', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((retry) => infraBackoffMs(retry)),
    [5_000, 10_000, 20_000, 40_000, 60_000, 60_000],
  );
});

it('starts from the loop’s infra_backoff_seconds and keeps the minute’s cap', () => {
  assert.deepEqual(
    [1, 2, 3].map((retry) => infraBackoffMs(retry, 1)),
    [1_000, 2_000, 4_000],
  );
  assert.deepEqual(
    [1, 2].map((retry) => infraBackoffMs(retry, 60)),
    [60_000, 60_000],
  );
});
