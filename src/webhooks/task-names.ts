// graphile-worker task names of the notifications area (the delivery task's name is also written in migration 0013's enqueue_webhook_delivery_jobs).
export const DELIVER_TASK = 'webhooks.deliver';
