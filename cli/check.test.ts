/**
 * One type-check group run by TypeScript's native compiler (cli/check): each script gets the
 * problems of its own file and of the project files it imports; a syntax error in one script
 * (while tsc reports one, it reports no semantic error anywhere) hides no other script's type error.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { checkGroup } from './check.js';
import { PACKAGE_ROOT } from './project.js';

const ZOD = path.join(PACKAGE_ROOT, 'node_modules', 'zod');
let dir: string;
const file = (rel: string) => path.join(dir, rel);

before(async () => {
  dir = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'check-group-'));
  await mkdir(file('shop/actions'), { recursive: true });
  await writeFile(file('shop/models.ts'), "export const currency: 'EUR' = 'USD';\n");
  await writeFile(file('shop/actions/unclosed.ts'), 'export default function broken( {\n');
  await writeFile(file('shop/actions/mistyped.ts'), "const count: number = 'three';\nexport default count;\n");
  await writeFile(file('shop/actions/priced.ts'), "import { currency } from '../models.js';\nexport default currency;\n");
  await writeFile(file('shop/actions/fine.ts'), 'export default 1;\n');
});
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('a syntax error in one script hides neither the type errors of the others nor of what they import', async () => {
  const files = ['unclosed', 'mistyped', 'priced', 'fine'].map((n) => file(`shop/actions/${n}.ts`));
  const result = await checkGroup({ dir, files, zodDir: ZOD, tsBuildInfoFile: file('.switchyard/check/g.tsbuildinfo') });
  const codes = (n: string) => result.byScript.get(file(`shop/actions/${n}.ts`))?.map((p) => p.code);
  assert.ok(
    codes('unclosed')?.every((c) => /^TS1\d{3}$/.test(c)),
    `unclosed: ${codes('unclosed')}`,
  );
  assert.deepEqual(codes('mistyped'), ['TS2322']);
  assert.match(
    result.byScript.get(file('shop/actions/mistyped.ts'))![0]!.line,
    /^shop\/actions\/mistyped\.ts:1:7 Type 'string' is not assignable to type 'number'/,
  );
  // The shared file's error fails the script that imports it.
  assert.deepEqual(codes('priced'), ['TS2322']);
  assert.match(result.byScript.get(file('shop/actions/priced.ts'))![0]!.line, /^shop\/models\.ts:1:14 Type '"USD"' is not assignable/);
  assert.equal(codes('fine'), undefined);
  assert.ok(result.programFiles.includes(file('shop/models.ts')));
});
