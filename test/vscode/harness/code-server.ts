// Starts a real VS Code server (code-server) for the vscode and e2e tiers, the way
// ../shared/notes/real-vscode.md describes: loopback on a free port, no auth, fresh user-data and
// extensions folders with quiet user settings preloaded, the extension under test installed from its
// VSIX, and its own process group so that stop() ends the pty and extension hosts too.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import type { WorkspaceTrust } from './environment';
import { findCodeServer, repoRoot } from './tools';

/** Quiet, deterministic user settings: nothing opens, updates or phones home. */
const baseSettings: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'chat.disableAIFeatures': true,
  'git.enabled': false,
};

export interface CodeServerOptions {
  /** The extension package to install (see packageExtension in ./vsix). */
  vsix: string;
  /** Fresh temporary folders are made when these are not given. */
  userDataDir?: string;
  extensionsDir?: string;
  /** User settings laid over the quiet defaults. */
  settings?: Record<string, unknown>;
  /** `--vscode-option enable-smoke-test-driver`: makes the workbench honour a `payload` with extensionTestsPath. */
  testDriver?: boolean;
  /**
   * `disabled` (the default): no Workspace Trust, every folder is trusted. `restricted`: Workspace
   * Trust on and never asked at startup, so a folder opened in a fresh profile stays in Restricted Mode.
   */
  workspaceTrust?: WorkspaceTrust;
  /** Extra environment for the server and so for its extension host. */
  env?: Record<string, string>;
  /**
   * `--locale`: VS Code's display language (vscode.env.language), e.g. zh-cn. Without a language
   * pack VS Code's own UI stays English; the extension's package.nls.<locale>.json and l10n bundle load.
   */
  locale?: string;
  /** Other extensions to install first (a language pack for `locale`). */
  otherVsix?: string[];
  /** Receives code-server's own log lines (default: dropped unless it fails to start). */
  log?: (line: string) => void;
}

const trustSettings: Record<WorkspaceTrust, Record<string, unknown>> = {
  disabled: { 'security.workspace.trust.enabled': false },
  restricted: { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never' },
};

export interface CodeServer {
  /** The workbench address, e.g. http://127.0.0.1:41234/ */
  url: string;
  userDataDir: string;
  extensionsDir: string;
  /** Where the VSIX was unpacked: the installed extension's own folder. */
  extensionPath: string;
  /** The `vscode-remote://` address of a server-side absolute path, as the workbench wants it in a payload. */
  remoteUri(path: string): string;
  /** Stops the whole process group (server, extension host, pty host); resolves when it is gone. */
  stop(): Promise<void>;
}

const manifestSchema = z.object({ publisher: z.string(), name: z.string(), version: z.string() });

/** The id `publisher.name` and the installed folder name of the extension in the repository's package.json. */
export function extensionManifest(root = repoRoot): { id: string; folder: string } {
  const m = manifestSchema.parse(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')));
  const id = `${m.publisher}.${m.name}`.toLowerCase();
  return { id, folder: `${id}-${m.version}` };
}

/**
 * languagepacks.json, the list of installed language packs VS Code's server reads to resolve
 * `--locale`: the server writes it when it installs a pack itself, but code-server's
 * `--install-extension` (another process) does not, so it is written here from the installed packs.
 */
function writeLanguagePacks(userDataDir: string, extensionsDir: string): void {
  const packs: Record<string, unknown> = {};
  for (const folder of readdirSync(extensionsDir)) {
    const manifestPath = join(extensionsDir, folder, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { publisher: string; name: string; version: string; contributes?: { localizations?: { languageId: string; localizedLanguageName?: string; translations: { id: string; path: string }[] }[] } };
    for (const localization of manifest.contributes?.localizations ?? []) {
      packs[localization.languageId] = {
        hash: `${manifest.publisher}.${manifest.name}-${manifest.version}`,
        extensions: [{ extensionIdentifier: { id: `${manifest.publisher}.${manifest.name}` }, version: manifest.version }],
        translations: Object.fromEntries(localization.translations.map((t) => [t.id, join(extensionsDir, folder, t.path)])),
        label: localization.localizedLanguageName ?? localization.languageId,
      };
    }
  }
  writeFileSync(join(userDataDir, 'languagepacks.json'), JSON.stringify(packs, null, 2));
}

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  const install = findCodeServer();
  const home = mkdtempSync(join(tmpdir(), 'llmbench-code-server-'));
  const userDataDir = options.userDataDir ?? join(home, 'user-data');
  const extensionsDir = options.extensionsDir ?? join(home, 'extensions');
  const config = join(home, 'config.yaml');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  writeFileSync(config, 'auth: none\ncert: false\n');
  const trust = options.workspaceTrust ?? 'disabled';
  const settings = { ...baseSettings, ...trustSettings[trust], ...options.settings };
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));

  const common = ['--config', config, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  for (const other of options.otherVsix ?? []) {
    const done = spawnSync(install.node, [install.entry, ...common, '--force', '--install-extension', other], { encoding: 'utf8', timeout: 120_000 });
    if (done.status !== 0) throw new Error(`code-server could not install ${other} (exit ${done.status}):\n${done.stdout}${done.stderr}`);
  }
  if (options.otherVsix?.length) writeLanguagePacks(userDataDir, extensionsDir);
  const installed = spawnSync(install.node, [install.entry, ...common, '--force', '--install-extension', options.vsix], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  const { folder } = extensionManifest();
  const extensionPath = join(extensionsDir, folder);
  if (installed.status !== 0 || !existsSync(extensionPath)) {
    rmSync(home, { recursive: true, force: true });
    throw new Error(
      `code-server could not install ${options.vsix} (exit ${installed.status}; expected ${extensionPath}):\n${installed.stdout}${installed.stderr}`,
    );
  }

  const args = [
    install.entry,
    ...common,
    '--auth', 'none',
    '--bind-addr', '127.0.0.1:0',
    '--disable-telemetry',
    '--disable-update-check',
    ...(trust === 'disabled' ? ['--disable-workspace-trust'] : []),
    '--disable-getting-started-override',
    '--reconnection-grace-time', '5',
    ...(options.testDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    ...(options.locale ? ['--locale', options.locale] : []),
  ];
  // detached: its own session and process group (setsid), so that stop() can signal the whole group.
  const child = spawn(install.node, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  const pgid = child.pid;
  if (pgid === undefined) throw new Error(`code-server did not start (${install.node} ${install.entry})`);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));

  const output: string[] = [];
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`code-server printed no address within 30 s:\n${output.join('\n')}`)), 30_000);
    const onLine = (chunk: Buffer): void => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        output.push(line);
        options.log?.(line);
        const address = line.match(/HTTP server listening on (http:\/\/127\.0\.0\.1:\d+\/)/)?.[1];
        if (address) {
          clearTimeout(timer);
          resolveUrl(address);
        }
      }
    };
    child.stdout.on('data', onLine);
    child.stderr.on('data', onLine);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited (${code}) before listening:\n${output.join('\n')}`));
    });
  }).catch(async (error: unknown) => {
    await stopGroup(pgid, exited);
    throw error;
  });

  const authority = new URL(url).host;
  return {
    url,
    userDataDir,
    extensionsDir,
    extensionPath,
    remoteUri: (path) => `vscode-remote://${authority}${path}`,
    stop: async () => {
      await stopGroup(pgid, exited);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

async function stopGroup(pgid: number, exited: Promise<void>): Promise<void> {
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(-pgid, name);
    } catch {
      // The group is already gone.
    }
  };
  signal('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise<void>((r) => (timer = setTimeout(r, 5_000)))]);
  clearTimeout(timer);
  // The main process may be gone before its children: no member of the group may outlive the tests.
  signal('SIGKILL');
  await exited;
}
