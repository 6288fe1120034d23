// openForVisitor, the one way in for visitors: the order of its steps and the one event each
// visit reports (where the access log plugs in), with a door made here and the real guard object.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors';
import { hashPassword } from '../../src/visitors/password';
import {
  type Door,
  EXHAUSTED,
  GONE,
  openForVisitor,
  Refusal,
  type Visit,
  type VisitEvent,
} from '../../src/visitors/service';
import { someAddress } from '../helpers/worker';

type Subject = { id: string; password?: Awaited<ReturnType<typeof hashPassword>> };

function recorder() {
  const events: VisitEvent[] = [];
  return { events, deps: { guard: env.AUTH_GUARD, record: (event: VisitEvent) => void events.push(event) } };
}

/** A door over one subject; `steps` lists what openForVisitor asked of it, in order. */
function door(subject: Subject | Refusal, answer: Response | Refusal, extra: Partial<Door<Subject, Response>> = {}) {
  const steps: string[] = [];
  const made: Door<Subject, Response> = {
    find: async () => {
      steps.push('find');
      return subject;
    },
    describe: (found) => ({ type: 'link', id: found.id, accountId: 'acc_test' }),
    lock: (found) =>
      found.password
        ? {
            id: found.id,
            stored: found.password,
            perAddress: { scope: 'link-password', limit: 10, windowSeconds: 300 },
            failures: { read: async () => undefined, count: async () => undefined },
            noun: 'link',
          }
        : null,
    admit: async () => void steps.push('admit'),
    serve: async () => {
      steps.push('serve');
      return answer;
    },
    standing: () => null,
    gone: () => new ApiError('FILE_NOT_FOUND'),
    ...extra,
  };
  return { door: made, steps };
}

const visit = (extra: Partial<Visit> = {}): Visit => ({
  kind: 'download',
  token: 'a-token',
  address: someAddress(),
  ...extra,
});

describe('openForVisitor', () => {
  it('finds, admits and serves in that order, and reports the answer as served, partial or not modified', async () => {
    for (const [status, outcome] of [
      [200, 'served'],
      [206, 'partial'],
      [304, 'not-modified'],
    ] as const) {
      const { deps, events } = recorder();
      const { door: made, steps } = door({ id: 'lnk_1' }, new Response(null, { status }));
      const visited = await openForVisitor(deps, visit(), made);
      expect(visited.open && visited.answer.status).toBe(status);
      expect(steps).toEqual(['find', 'admit', 'serve']);
      expect(events).toEqual([
        { kind: 'download', outcome, status, subject: { type: 'link', id: 'lnk_1', accountId: 'acc_test' } },
      ]);
    }
  });

  it('returns a refused password (locked or wrong) without admitting or serving, and reports it', async () => {
    const password = await hashPassword('right one');
    for (const [given, access] of [
      [undefined, 'locked'],
      ['wrong one', 'wrong'],
    ] as const) {
      const { deps, events } = recorder();
      const { door: made, steps } = door({ id: 'lnk_2', password }, new Response('bytes'));
      const visited = await openForVisitor(deps, visit({ password: given }), made);
      expect(visited).toMatchObject({ open: false, access });
      expect(steps).toEqual(['find']);
      expect(events.map((event) => event.outcome)).toEqual(['refused-password']);
    }
    const { deps } = recorder();
    const visited = await openForVisitor(
      deps,
      visit({ password: 'right one' }),
      door({ id: 'lnk_2', password }, new Response('bytes')).door,
    );
    expect(visited.open).toBe(true);
  });

  it('answers a gone or exhausted subject with the door’s 404, and tells the two apart in its report', async () => {
    const gone = recorder();
    await expect(openForVisitor(gone.deps, visit(), door(GONE, new Response()).door)).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
    });
    expect(gone.events).toEqual([{ kind: 'download', outcome: 'refused-gone', status: 404, subject: undefined }]);
    const spent = recorder();
    await expect(openForVisitor(spent.deps, visit(), door({ id: 'lnk_3' }, EXHAUSTED).door)).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
    });
    expect(spent.events.map((event) => [event.outcome, event.subject?.id])).toEqual([['refused-exhausted', 'lnk_3']]);
  });

  it('answers a subject out of standing with its refusal before any password or admission, as refused-moderated', async () => {
    const password = await hashPassword('right one');
    for (const [standing, code, status] of [
      [{ reason: 'quarantined', statement: 'Held for review.' }, 'UNAVAILABLE_FOR_LEGAL_REASONS', 451],
      [{ reason: 'scan-pending' }, 'SCAN_PENDING', 409],
    ] as const) {
      const { deps, events } = recorder();
      const { door: made, steps } = door({ id: 'lnk_7', password }, new Response('bytes'), {
        standing: () => standing,
      });
      const refused = openForVisitor(deps, visit({ password: 'wrong one' }), made);
      await expect(refused).rejects.toMatchObject({ code, status });
      expect(steps).toEqual(['find']);
      expect(events).toEqual([
        {
          kind: 'download',
          outcome: 'refused-moderated',
          status,
          subject: { type: 'link', id: 'lnk_7', accountId: 'acc_test' },
        },
      ]);
    }
    const moderated = recorder();
    const served = door({ id: 'lnk_8' }, new Response(), {
      serve: async () => new Refusal('moderated', { id: 'lnk_8' }, new ApiError('UNAVAILABLE_FOR_LEGAL_REASONS')),
    });
    await expect(openForVisitor(moderated.deps, visit(), served.door)).rejects.toMatchObject({ status: 451 });
    expect(moderated.events.map((event) => event.outcome)).toEqual(['refused-moderated']);
  });

  it('throttles per address before the token is looked up, and reports the 429', async () => {
    const { deps, events } = recorder();
    const address = someAddress();
    const throttle = { scope: 'link-download', limit: 1, windowSeconds: 60 } as const;
    const { door: made, steps } = door({ id: 'lnk_4' }, new Response('bytes'), { throttle });
    await openForVisitor(deps, visit({ address }), made);
    await expect(openForVisitor(deps, visit({ address }), made)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(steps).toEqual(['find', 'admit', 'serve']);
    expect(events.map((event) => [event.outcome, event.status])).toEqual([
      ['served', 200],
      ['throttled', 429],
    ]);
  });

  it('reports an answer that failed as failed, and a recorder that throws never breaks the visit', async () => {
    const { deps, events } = recorder();
    const broken = door({ id: 'lnk_5' }, new Response(), {
      serve: async () => {
        throw new ApiError('RANGE_NOT_SATISFIABLE');
      },
    });
    await expect(openForVisitor(deps, visit(), broken.door)).rejects.toMatchObject({ code: 'RANGE_NOT_SATISFIABLE' });
    expect(events.map((event) => [event.outcome, event.status])).toEqual([['failed', 416]]);
    const throwing = {
      guard: env.AUTH_GUARD,
      record: () => {
        throw new Error('the log is down');
      },
    };
    const visited = await openForVisitor(throwing, visit(), door({ id: 'lnk_6' }, new Response('ok')).door);
    expect(visited.open).toBe(true);
  });
});
