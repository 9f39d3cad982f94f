import { describe, expect, it } from 'vitest';
import * as go from '@fabric-ops/ops-http/go';
import * as index from '@fabric-ops/ops-http';

describe('entries', () => {
  it("keeps Go's wording out of the index, in ./go", () => {
    expect(Object.keys(go).sort()).toEqual(['formatGoDuration', 'formatHostPort', 'formatRemoteAddress', 'goErrnoText', 'splitHostPort']);
    for (const name of Object.keys(go)) expect(Object.keys(index)).not.toContain(name);
    expect(Object.keys(index)).toContain('writeNotFound');
  });
});
