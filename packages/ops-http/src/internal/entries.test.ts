import { describe, expect, it } from 'vitest';
import * as errors from '@fabric-ops/ops-http/errors';
import * as files from '@fabric-ops/ops-http/fs';
import * as go from '@fabric-ops/ops-http/go';
import * as index from '@fabric-ops/ops-http';

describe('entries', () => {
  it("keeps Go's wording out of the index, in ./go", () => {
    expect(Object.keys(go).sort()).toEqual(['answerClientErrorAsGo', 'formatGoDuration', 'formatHostPort', 'formatRemoteAddress', 'goErrnoText', 'parseRequestTarget', 'splitHostPort']);
    for (const name of Object.keys(go)) expect(Object.keys(index)).not.toContain(name);
    expect(Object.keys(index)).toContain('writeNotFound');
  });

  it('keeps the bounded file reader out of the index, in ./fs', () => {
    expect(Object.keys(files).sort()).toEqual(['DEFAULT_MAX_FILE_BYTES', 'describeFileKind', 'readRegularFileSync', 'shownPath']);
    for (const name of Object.keys(files)) expect(Object.keys(index)).not.toContain(name);
  });

  it('keeps the error base out of the index, in ./errors', () => {
    expect(Object.keys(errors).sort()).toEqual(['FabricOpsError', 'errorGuard']);
    for (const name of Object.keys(errors)) expect(Object.keys(index)).not.toContain(name);
  });
});
