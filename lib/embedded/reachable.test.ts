import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError } from '../config.js';
import { startEmbeddedPostgres } from './postgres.js';
import { firstUnreachable } from './reachable.js';
import { freePort } from './temporal.js';

const stranger = { uid: 54321, gids: [54321] };

describe('can the postgres user reach the data folder (issue 14, item 10)', () => {
  const made: string[] = [];
  after(async () => {
    for (const dir of made) await rm(dir, { recursive: true, force: true });
  });
  async function tree(mode: number): Promise<{ top: string; deep: string }> {
    const top = await mkdtemp(path.join(os.tmpdir(), 'reach-'));
    made.push(top);
    const deep = path.join(top, 'project', '.switchyard', 'postgres');
    await mkdir(deep, { recursive: true });
    await chmod(top, mode);
    return { top, deep };
  }

  test('a folder on the way without search permission for the user is named; its owner and group pass', async () => {
    const { top, deep } = await tree(0o700);
    // The top folder as if owned by uid 4242, group 4343 (changing owners needs root).
    const statOf = async (p: string) => {
      const st = await stat(p);
      return p === top ? { mode: st.mode, uid: 4242, gid: 4343 } : st;
    };
    const owner = { uid: 4242, gids: [1] };
    const member = { uid: 1, gids: [4343] };
    assert.equal(await firstUnreachable(deep, stranger, statOf), top);
    assert.equal(await firstUnreachable(deep, owner, statOf), null, 'the owner');
    assert.equal(await firstUnreachable(deep, member, statOf), top);
    await chmod(top, 0o710);
    assert.equal(await firstUnreachable(deep, stranger, statOf), top);
    assert.equal(await firstUnreachable(deep, member, statOf), null, 'the group');
    await chmod(top, 0o701);
    assert.equal(await firstUnreachable(deep, stranger, statOf), null, 'others with x');
    assert.equal(await firstUnreachable(deep, member, statOf), top, 'the group bits apply to the group, not the other bits');
    await chmod(top, 0o601);
    assert.equal(await firstUnreachable(deep, owner, statOf), top, 'the owner bits apply to the owner');
  });

  test('folders not created yet, and root, are not refused', async () => {
    const { top } = await tree(0o755);
    assert.equal(await firstUnreachable(path.join(top, 'not', 'yet'), stranger), null);
    await chmod(top, 0o700);
    assert.equal(await firstUnreachable(top, { uid: 0, gids: [0] }), null);
  });

  test(
    'as root in a folder the postgres user cannot reach, the embedded start stops before initdb and says what to do',
    { skip: process.getuid?.() !== 0 && 'runs as root only' },
    async () => {
      const { top, deep } = await tree(0o700);
      await assert.rejects(startEmbeddedPostgres(deep, await freePort()), (err: unknown) => {
        assert.ok(err instanceof ConfigError, String(err));
        assert.match(err.message, new RegExp(`the \`postgres\` user, which cannot enter ${top} `));
        assert.match(err.message, /Set SWITCHYARD_DATA_DIR to a folder it can reach/);
        return true;
      });
      assert.equal(existsSync(path.join(deep, 'pgdata')), false, 'stopped before initdb');
    },
  );
});
