// The rooms of the code and who may import whom, read from the rooms table of docs/architecture.md
// so that the document and this test cannot drift apart: every file of src/ and webview/ lies in a
// documented room, and every import it makes of another room goes to one listed before its own.
// Beside the order: only src/host knows VS Code, and the webviews take from src/ only the schemas
// (format), the view models (views) and the pure helpers they format with (report's units, tables
// and label text). A file that breaks a rule is named with the import that breaks it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { repoRoot } from '../helpers/limited-child';

const ARCHITECTURE = 'docs/architecture.md';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The repository path of a file, with forward slashes. */
const repoPath = (path: string): string => relative(repoRoot, path).split(sep).join('/');

/**
 * Each import of a file (static, re-export, side effect, or an inline `import('...')` type), as the
 * repository path it names without extension, or the package name.
 */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\}|\w+(?:\s*,\s*(?:\{[^}]*\}|\*\s+as\s+\w+))?)\s+from\s+'([^']+)'/gm),
    ...text.matchAll(/^\s*import\s+'([^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1] as string);
  return specifiers.map((spec) => (spec.startsWith('.') ? repoPath(resolve(file, '..', spec)) : spec));
}

/** The rooms in the order of docs/architecture.md's table: the first column of each row, `src/format/` and so on. */
function documentedRooms(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Rooms')) ?? '';
  return [...section.matchAll(/^\| `([^`]+)\/` \|/gm)].map((m) => m[1] as string);
}

const rooms = documentedRooms(readFileSync(join(repoRoot, ARCHITECTURE), 'utf8'));

/** The documented room a repository path lies in (the longest that holds it; a room's own folder names its index), or undefined. */
function roomOf(path: string): string | undefined {
  return rooms.filter((room) => path === room || path.startsWith(`${room}/`)).sort((a, b) => b.length - a.length)[0];
}

/** Each edge between two rooms: which file, which import, and each side's room. */
function roomEdges(): { file: string; target: string; from: string; to: string | undefined }[] {
  return ['src', 'webview'].flatMap((top) =>
    sourceFiles(join(repoRoot, top)).flatMap((path) => {
      const file = repoPath(path);
      const from = roomOf(file) ?? '(no documented room)';
      return importsOf(path)
        .filter((target) => target.startsWith('src/') || target.startsWith('webview/'))
        .map((target) => ({ file, target, from, to: roomOf(target) }))
        .filter((edge) => edge.to !== edge.from);
    }),
  );
}

test(`${ARCHITECTURE} lists the rooms, and every folder of src/ and webview/ is one of them`, () => {
  assert.ok(rooms.length >= 10 && rooms[0] === 'src/format' && rooms.at(-1) === 'webview', `rooms read from ${ARCHITECTURE}: ${rooms.join(', ')}`);
  assert.equal(new Set(rooms).size, rooms.length, `a room listed twice: ${rooms.join(', ')}`);
  const folders = readdirSync(join(repoRoot, 'src')).filter((name) => statSync(join(repoRoot, 'src', name)).isDirectory()).map((name) => `src/${name}`);
  assert.deepEqual(folders.filter((folder) => !rooms.includes(folder)), [], `folders of src/ missing from ${ARCHITECTURE}`);
  assert.deepEqual(rooms.filter((room) => !existsSync(join(repoRoot, room))), [], `rooms in ${ARCHITECTURE} with no folder`);
  assert.deepEqual(sourceFiles(join(repoRoot, 'src')).map(repoPath).filter((file) => roomOf(file) === undefined), [], 'source files outside every room');
});

test(`every import between rooms goes to a room listed before its own in ${ARCHITECTURE}`, () => {
  const edges = roomEdges();
  // The check sees the edges the code has: the load loop's runner takes its workload and its writer from rooms before it.
  assert.ok(edges.some((e) => e.file === 'src/load/runner.ts' && e.to === 'src/workload'), 'no edge from the runner to the workload was found: the import reader is broken');
  const breaches = edges.flatMap(({ file, target, from, to }) => {
    if (to === undefined) return [`${file} imports ${target}, which is in no room of ${ARCHITECTURE}`];
    if (rooms.indexOf(to) < rooms.indexOf(from)) return [];
    return [`${file} imports ${target}: ${to} is listed after ${from} in ${ARCHITECTURE}, so ${from} may not import it`];
  });
  assert.deepEqual(breaches, []);
});

test('only src/host imports vscode', () => {
  const outside = sourceFiles(join(repoRoot, 'src')).filter((path) => !repoPath(path).startsWith('src/host/'));
  const breaches = outside.flatMap((path) => (importsOf(path).includes('vscode') ? [`${repoPath(path)} imports vscode`] : []));
  assert.deepEqual(breaches, []);
});

test('the webviews take from src/ only schemas, view models and formatting helpers', () => {
  const allowed = ['src/format/', 'src/views/'];
  const breaches = sourceFiles(join(repoRoot, 'webview')).flatMap((path) =>
    importsOf(path)
      .filter((target) => target.startsWith('src/') && !allowed.some((prefix) => target.startsWith(prefix)))
      .map((target) => `${repoPath(path)} imports ${target}`),
  );
  assert.deepEqual(breaches, []);
});
