// graphile-worker task names of the notifications area (also used by migration 0013's trigger).
export const DELIVER_TASK = 'webhooks.deliver';
