// Every abuse action reaches the owner as a signed webhook carrying the operator's statement
// (file.quarantined, file.released, file.removed, link.disabled, account.suspended,
// account.unsuspended), once per change; and the operator's own events (report.received here) go
// to OPERATOR_WEBHOOK_URL, signed with OPERATOR_WEBHOOK_SECRET. Through the real local queue and
// consumer; each delivery verified by the standardwebhooks package.
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { emitOperatorEvent, eventSink } from '../../src/events/emit';
import { makeLink } from '../helpers/links';
import { act, disableLink, quarantine, removeFile, suspend } from '../helpers/moderation';
import { uploadOk } from '../helpers/upload';
import {
  callsTo,
  createWebhook,
  interceptReceivers,
  ofType,
  payloadOf,
  receiver,
  settle,
  verifyDelivery,
  waitFor,
} from '../helpers/webhooks';
import { createKey } from '../helpers/worker';

beforeAll(() => interceptReceivers());

const NOTICES = [
  'file.quarantined',
  'file.released',
  'file.removed',
  'link.disabled',
  'account.suspended',
  'account.unsuspended',
];

describe('notices', () => {
  it('tell the owner of every action with its statement, signed, once per change', async () => {
    const owner = await createKey('noticed owner');
    const hook = receiver();
    const webhook = await createWebhook(owner.auth, hook.url, NOTICES);
    const held = await uploadOk('v2', owner.auth, { filename: 'held.txt', content: 'held a while' });
    const gone = await uploadOk('v2', owner.auth, { filename: 'gone.txt', content: 'gone for good' });
    const link = await makeLink(owner.auth, held.id);

    await quarantine(held.id, 'Held: reported as phishing.');
    await quarantine(held.id, 'Held again.');
    await act(`/files/${held.id}/release`, { statement: 'Released: the report was mistaken.' });
    await removeFile(gone.id, 'Removed: a court order.');
    await disableLink(link.id, 'Disabled: spam.');
    await suspend(owner.id, 'Suspended: repeated abuse.');
    await act(`/accounts/${owner.id}/unsuspend`, { statement: 'Lifted on appeal.' });

    await waitFor(() => hook.calls().length >= NOTICES.length, 'every notice');
    await settle(1500);
    const bodies = hook.calls().map((delivery) => verifyDelivery(webhook.secret, delivery));
    expect(bodies.map((body) => body.type).sort()).toEqual([...NOTICES].sort());
    const of = (type: string) => bodies.find((body) => body.type === type)?.data;
    expect(of('file.quarantined')).toMatchObject({
      statement: 'Held: reported as phishing.',
      file: { id: held.id, moderation: { state: 'quarantined', statement: 'Held: reported as phishing.' } },
    });
    expect(of('file.released')).toMatchObject({
      statement: 'Released: the report was mistaken.',
      file: { id: held.id, moderation: null },
    });
    expect(of('file.removed')).toMatchObject({
      statement: 'Removed: a court order.',
      file: { id: gone.id, moderation: { state: 'removed' } },
    });
    expect(of('link.disabled')).toEqual({
      linkId: link.id,
      fileId: held.id,
      collectionId: null,
      statement: 'Disabled: spam.',
    });
    expect(of('account.suspended')).toEqual({ accountId: owner.id, statement: 'Suspended: repeated abuse.' });
    expect(of('account.unsuspended')).toEqual({ accountId: owner.id, statement: 'Lifted on appeal.' });
    expect(ofType(hook.calls(), 'file.quarantined')).toHaveLength(1);
  });

  it('tell the operator of a report, signed with the operator’s secret, and nothing when no receiver is set', async () => {
    const ctx = createExecutionContext();
    const sink = eventSink(env, ctx);
    const reportId = `rpt_notice_${crypto.randomUUID()}`;
    emitOperatorEvent(sink, env.OPERATOR_WEBHOOK_URL, 'report.received', { reportId, reason: 'malware' });
    emitOperatorEvent(sink, undefined, 'report.received', { reportId: `${reportId}-nowhere` });
    await waitOnExecutionContext(ctx);
    const delivery = await waitFor(
      () =>
        callsTo('operator.hooks.test').find(
          (call) => payloadOf(call).type === 'report.received' && call.body.includes(reportId),
        ),
      'the operator’s report',
    );
    const body = verifyDelivery(env.OPERATOR_WEBHOOK_SECRET ?? '', delivery);
    expect(body).toMatchObject({ type: 'report.received', data: { reportId, reason: 'malware' } });
    expect(delivery.headers.get('webhook-id')).toMatch(/^msg_/);
    await settle(1000);
    expect(callsTo('operator.hooks.test').filter((call) => call.body.includes(reportId))).toHaveLength(1);
  });
});
