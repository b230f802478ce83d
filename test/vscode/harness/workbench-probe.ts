// What the workbench shows that no VS Code API tells an extension: its notifications. The launcher
// serves them from its Chromium page on a loopback address (named by $LLMBENCH_WORKBENCH_PROBE in the
// extension host), and suites read them with readNotifications() to check a message the user sees.
// With the smoke-test driver on (as in the vscode tier) the workbench shows no toasts: notifications
// go only to the notification center, which is drawn while open (the `notifications.showList` command).
import { createServer } from 'node:http';
import type { Page } from 'playwright-core';
import * as z from 'zod';
import { listenOnLoopback } from '../../helpers/loopback';

export const workbenchProbeVariable = 'LLMBENCH_WORKBENCH_PROBE';

const NotificationSchema = z.object({ message: z.string(), actions: z.array(z.string()) });
export type Notification = z.infer<typeof NotificationSchema>;
const NotificationsSchema = z.array(NotificationSchema);

async function notificationsOf(page: Page): Promise<Notification[]> {
  const shown = '.notifications-toasts .notification-list-item, .notifications-center .notification-list-item';
  return page.locator(shown).evaluateAll((items) =>
    items.map((item) => ({
      message: item.querySelector('.notification-list-item-message')?.textContent ?? '',
      actions: [...item.querySelectorAll('.notification-list-item-buttons-container .monaco-button')].map((b) => b.textContent ?? ''),
    })),
  );
}

/** Serves GET /notifications from whatever page `currentPage` returns; answers 503 while there is none. */
export async function serveWorkbenchProbe(currentPage: () => Page | undefined): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const page = currentPage();
    if (req.method !== 'GET' || req.url !== '/notifications') {
      res.writeHead(404).end();
      return;
    }
    if (!page) {
      res.writeHead(503).end('the workbench page is not open yet');
      return;
    }
    notificationsOf(page).then(
      (notifications) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(notifications)),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
  const { port, close } = await listenOnLoopback(server);
  return { url: `http://127.0.0.1:${port}`, close };
}

/** The notifications the workbench draws now, as toasts or in the open notification center (from a suite inside the extension host). */
export async function readNotifications(): Promise<Notification[]> {
  const probe = process.env[workbenchProbeVariable];
  if (!probe) throw new Error(`${workbenchProbeVariable} is not set: the suites must be started by test/vscode/run.ts`);
  const response = await fetch(`${probe}/notifications`);
  if (!response.ok) throw new Error(`the workbench probe answered ${response.status}: ${await response.text()}`);
  return NotificationsSchema.parse(await response.json());
}
