// Docs, comments and test names describe the project as it is: none points at the project's own
// work sessions, issue numbers or review findings (history lives in git and in .changeset/).
// References to upstream trackers are fine written as owner/repo#123 or FAB-123, which this
// pattern does not match.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './peer.ts';

const SELF = 'tools/docs-test/src/no-history.test.ts';

/** An issue, finding, item or session of this project by its number (the forms are the samples below), or `last session`. */
const HISTORY_PATTERN = String.raw`\(issue [0-9]+|issue [0-9]+[,:)]|\bissues? [0-9]{1,3}\b|\bissues? #[0-9]+|\bfindings? [0-9]+|\bitems? [0-9]+\b|session [0-9]+|\blast session\b`;

/** Every tracked line (outside .changeset/ and this file) matching `pattern`, as `path:line:text`. */
function trackedLinesMatching(pattern: string): string[] {
  const grep = spawnSync('git', ['grep', '-nIiE', pattern, '--', '.', ':!.changeset', `:!${SELF}`], { cwd: repoRoot, encoding: 'utf8' });
  // git grep: 0 when lines matched, 1 when none did, anything else (no git, not a checkout) is an error.
  if (grep.status !== 0 && grep.status !== 1) throw new Error(`git grep failed (${grep.status ?? grep.signal}): ${grep.error?.message ?? grep.stderr}`);
  return grep.stdout.split('\n').filter((line) => line !== '');
}

describe('the tracked files describe the project, not its history', () => {
  it('no README, comment or test name mentions a work session, issue number or finding of this project', () => {
    expect(trackedLinesMatching(HISTORY_PATTERN)).toEqual([]);
  });

  it('the pattern catches each form it is meant to, and leaves upstream references alone', () => {
    const matches = (line: string) => new RegExp(HISTORY_PATTERN, 'i').test(line);
    // Numbers joined at run time, so that this file passes the same search run by hand (`git grep` for them).
    const forms = ['(issue N, finding N)', 'issue N:', 'issues #N/#N', 'Issue N (items 1, 2, 8)', 'items N-N', 'counts them (item N)', 'Session N: V8', 'issue #N', 'since the last session'];
    for (const line of forms.map((form) => form.replaceAll('N', '37'))) {
      expect(matches(line), line).toBe(true);
    }
    for (const line of ['nodejs/node#123', "Fabric's FAB-18244", 'PEM certificate #1 cannot be parsed', 'a resumed TLS session']) {
      expect(matches(line), line).toBe(false);
    }
  });
});
