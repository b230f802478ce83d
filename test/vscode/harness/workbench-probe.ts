// What the workbench shows that no VS Code API tells an extension: its notifications and modal
// dialogs. The launcher serves them from its Chromium page on a loopback address (named by
// $LLMBENCH_WORKBENCH_PROBE in the extension host), and suites read them with readNotifications() and
// readDialog() to check a message the user sees, and answer a modal dialog with answerDialog() as a
// user clicks its button.
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

const DialogSchema = z.object({ message: z.string(), detail: z.string(), buttons: z.array(z.string()) });
export type Dialog = z.infer<typeof DialogSchema>;
const DIALOG = '.monaco-dialog-box';
const DIALOG_BUTTONS = `${DIALOG} .dialog-buttons .monaco-button`;

/** The modal dialog the workbench shows now, or null. */
async function dialogOf(page: Page): Promise<Dialog | null> {
  const box = page.locator(DIALOG).first();
  if (!(await box.isVisible())) return null;
  return box.evaluate((node) => ({
    message: node.querySelector('.dialog-message-text')?.textContent ?? '',
    detail: node.querySelector('.dialog-message-detail')?.textContent ?? '',
    buttons: [...node.querySelectorAll('.dialog-buttons .monaco-button')].map((b) => b.textContent ?? ''),
  }));
}

/** Clicks the modal dialog's button labelled `label`; answers the dialog as it was. */
async function clickDialogButton(page: Page, label: string): Promise<Dialog> {
  const dialog = await dialogOf(page);
  if (!dialog) throw new Error('no modal dialog is showing');
  if (!dialog.buttons.includes(label)) throw new Error(`the dialog has no button "${label}" (it has ${dialog.buttons.join(', ')})`);
  await page.locator(DIALOG_BUTTONS, { hasText: label }).first().click();
  return dialog;
}

/**
 * Serves, from whatever page `currentPage` returns (503 while there is none): GET /notifications,
 * GET /dialog (the modal dialog or null) and POST /dialog?click=LABEL (clicks its button).
 */
export async function serveWorkbenchProbe(currentPage: () => Page | undefined): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const page = currentPage();
    const url = new URL(req.url ?? '/', 'http://probe');
    const answer: (() => Promise<unknown>) | undefined =
      !page ? undefined
      : req.method === 'GET' && url.pathname === '/notifications' ? () => notificationsOf(page)
      : req.method === 'GET' && url.pathname === '/dialog' ? () => dialogOf(page)
      : req.method === 'POST' && url.pathname === '/dialog' ? () => clickDialogButton(page, url.searchParams.get('click') ?? '')
      : undefined;
    if (!page) {
      res.writeHead(503).end('the workbench page is not open yet');
      return;
    }
    if (!answer) {
      res.writeHead(404).end();
      return;
    }
    answer().then(
      (value) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value)),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
  const { port, close } = await listenOnLoopback(server);
  return { url: `http://127.0.0.1:${port}`, close };
}

async function askProbe(path: string, method: 'GET' | 'POST' = 'GET'): Promise<unknown> {
  const probe = process.env[workbenchProbeVariable];
  if (!probe) throw new Error(`${workbenchProbeVariable} is not set: the suites must be started by test/vscode/run.ts`);
  const response = await fetch(`${probe}${path}`, { method });
  if (!response.ok) throw new Error(`the workbench probe answered ${response.status}: ${await response.text()}`);
  return response.json();
}

/** The notifications the workbench draws now, as toasts or in the open notification center (from a suite inside the extension host). */
export async function readNotifications(): Promise<Notification[]> {
  return NotificationsSchema.parse(await askProbe('/notifications'));
}

/** The modal dialog the workbench shows now (message, detail, buttons), or null. */
export async function readDialog(): Promise<Dialog | null> {
  return DialogSchema.nullable().parse(await askProbe('/dialog'));
}

/** Clicks the button `label` of the modal dialog showing, as a user would; answers what the dialog said. */
export async function answerDialog(label: string): Promise<Dialog> {
  return DialogSchema.parse(await askProbe(`/dialog?click=${encodeURIComponent(label)}`, 'POST'));
}
