/** GET /notifications (docs/api/notifications.md, docs/api/conventions.md#lists) and a notifier's test notification (docs/api/notifications.md, docs/api/events.md#alerts-and-notifications). */
import { z } from 'zod';
import { loadInstanceConfig, NotificationLog, sendTestNotification } from '../../../runtime/index.js';
import { freshEm, runtimeOf, type ApiContext } from '../../context.js';
import { notFound } from '../../errors.js';
import type { ApiRouter } from '../../http/router.js';
import { listAnswer, recordName } from '../../schemas/common.js';
import { NotificationListQuery, NotificationRecord, notificationList } from '../../schemas/notification.js';

export function registerNotificationRoutes(router: ApiRouter, ctx: ApiContext): void {
  const log = () => new NotificationLog(ctx.orm, ctx.options.publicUrl);

  router.add({
    method: 'GET',
    url: '/notifications',
    tag: 'Notifications',
    summary: 'The notification log: one row per alert and notifier, newest alert first',
    query: NotificationListQuery,
    response: notificationList,
    handler: async ({ query }) => {
      const { rows, total } = await log().list(query);
      return listAnswer('notifications', { items: rows, total, limit: query.limit, offset: query.offset });
    },
  });

  for (const type of ['notification-webhook', 'notification-email'] as const) {
    router.add({
      method: 'POST',
      url: `/plugins/configs/${type}/:name/test`,
      tag: 'Notifications',
      summary: 'Send a test notification now; answers its log row (delivered or failed with the reason)',
      params: z.object({ name: recordName }),
      response: NotificationRecord,
      errors: ['NOT_FOUND'],
      handler: async ({ params }) => {
        const config = await loadInstanceConfig(freshEm(ctx), ctx.secrets, type, params.name);
        if (!config) throw notFound(`Plugin configuration ${type}/${params.name}`);
        const runtime = runtimeOf(ctx);
        const id = await sendTestNotification(
          {
            orm: ctx.orm,
            now: ctx.now,
            publicUrl: ctx.options.publicUrl,
            supervisor: runtime.supervisor,
            notifications: runtime.notifications,
          },
          config,
        );
        return log().get(id);
      },
    });
  }
}
