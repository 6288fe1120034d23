// /keys, the operator's reports: the open reports (GET /admin/reports) with their target, reason,
// details, contact, the link with its key if the reporter gave it, and how many distinct visitors
// reported the target; each decided with a statement (POST /admin/reports/{id}/resolve: dismiss,
// quarantine, remove, suspend; remove may block the file's SHA-256 first). Recent decisions offer
// release and unsuspend. Uses keys.js's admin call and message box (loaded first); the DOM is built
// with textContent and attributes only, so nothing a reporter wrote can become markup.
// An IIFE: keys.js, a classic script on the same page, has its own top-level names.
(() => {
  const { admin, fail, showMessage, clearMessage } = globalThis.edgeshareOperator;
  const { formatDate } = globalThis.edgeshareFormat;
  const byId = (id) => document.getElementById(id);

  const REASONS = {
    malware: 'Malware',
    phishing: 'Phishing',
    csam: 'Child sexual abuse material',
    copyright: 'Copyright',
    illegal: 'Illegal content',
    spam: 'Spam',
    other: 'Other',
  };

  /** The actions that fit a target, each with its button's words. */
  function actionsFor(target) {
    if (!target) return [['dismiss', 'Dismiss']];
    const actions = [['dismiss', 'Dismiss']];
    if (target.type === 'file') actions.push(['quarantine', 'Quarantine the file'], ['remove', 'Remove the file']);
    if (target.type === 'link') actions.push(['quarantine', 'Disable the link'], ['remove', 'Remove its file']);
    if (target.type === 'collection') actions.push(['quarantine', 'Disable its links']);
    if (target.accountId) actions.push(['suspend', 'Suspend the account']);
    return actions;
  }

  const TARGET_WORDS = { file: 'File', link: 'Link', collection: 'Collection', request: 'File request' };

  const targetText = (target) =>
    target ? `${TARGET_WORDS[target.type] ?? target.type} ${target.id}` : 'Nothing (the URL named nothing)';

  function time(iso) {
    const element = document.createElement('time');
    element.dateTime = iso;
    element.textContent = formatDate(iso);
    return element;
  }

  /** One fact of a report: a term and its value (text, or a node). */
  function fact(list, term, value) {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    if (value instanceof Node) dd.append(value);
    else dd.textContent = value;
    list.append(dt, dd);
  }

  /** The link with its key, as a link only when it is an http(s) URL. */
  function keyLink(value) {
    if (!/^https?:\/\//i.test(value)) return value;
    const a = document.createElement('a');
    a.href = value;
    a.textContent = value;
    a.rel = 'noreferrer noopener';
    a.target = '_blank';
    return a;
  }

  const CONFIRM = {
    remove: 'Remove the file for good? Its bytes are deleted and every URL of it answers 451. This cannot be undone.',
    suspend: 'Suspend the account? Every key of it is refused and every link and file request of it answers 451.',
  };

  async function decide(report, action, form) {
    const statement = form.elements.statement.value.trim();
    if (!statement) {
      showMessage('Write the statement first: the owner gets it, and visitors see it on the 451.');
      form.elements.statement.focus();
      return;
    }
    if (CONFIRM[action] && !window.confirm(CONFIRM[action])) return;
    clearMessage();
    try {
      const blockHash = action === 'remove' && form.elements.blockHash?.checked;
      // Blocking the hash is part of the file's removal; the report is then resolved as removed.
      if (blockHash)
        await admin('POST', `/files/${encodeURIComponent(report.target.id)}/remove`, { statement, blockHash });
      const result = await admin('POST', `/reports/${encodeURIComponent(report.id)}/resolve`, { action, statement });
      const count = result.resolved.length;
      showMessage(`Decided: ${action}. ${count} ${count === 1 ? 'report' : 'reports'} of this target resolved.`, 'ok');
      await loadReports();
    } catch (error) {
      fail(error);
    }
  }

  function reportCard(report) {
    const item = document.createElement('li');
    item.className = 'report panel';
    item.dataset.reportId = report.id;
    const heading = document.createElement('h3');
    heading.textContent = `${REASONS[report.reason] ?? report.reason}: ${targetText(report.target)}`;
    item.append(heading);
    const facts = document.createElement('dl');
    facts.className = 'file-facts report-facts';
    if (report.target?.accountId) fact(facts, 'Account', report.target.accountId);
    fact(facts, 'Reported by', `${report.reporters} ${report.reporters === 1 ? 'visitor' : 'visitors'}`);
    fact(facts, 'Received', time(report.createdAt));
    if (report.details) fact(facts, 'Details', report.details);
    if (report.contact) fact(facts, 'Contact', report.contact);
    if (report.linkWithKey) fact(facts, 'Link with its key', keyLink(report.linkWithKey));
    item.append(facts);

    const form = document.createElement('form');
    form.className = 'report-actions';
    const field = document.createElement('div');
    field.className = 'field';
    const label = document.createElement('label');
    label.htmlFor = `statement-${report.id}`;
    label.textContent = 'Statement';
    const input = document.createElement('textarea');
    input.id = `statement-${report.id}`;
    input.name = 'statement';
    input.rows = 2;
    input.maxLength = 2000;
    const hint = document.createElement('span');
    hint.className = 'hint';
    hint.textContent = 'Your reasoned decision: the owner gets it, visitors see it on the 451.';
    field.append(label, input, hint);
    form.append(field);
    if (report.target?.type === 'file') {
      const check = document.createElement('label');
      check.className = 'check';
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.name = 'blockHash';
      check.append(box, ' With Remove: block its SHA-256, so it never gets in again');
      form.append(check);
    }
    const buttons = document.createElement('div');
    buttons.className = 'row';
    for (const [action, words] of actionsFor(report.target)) {
      const button = document.createElement('button');
      button.type = 'submit';
      button.value = action;
      button.textContent = words;
      if (action === 'dismiss') button.className = 'secondary';
      if (action === 'remove' || action === 'suspend') button.className = 'danger';
      buttons.append(button);
    }
    form.append(buttons);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      decide(report, event.submitter?.value ?? 'dismiss', form);
    });
    item.append(form);
    return item;
  }

  /** A decided report: what was decided, and the way back where there is one (release, unsuspend). */
  function decidedCard(report) {
    const item = document.createElement('li');
    item.className = 'report decided';
    item.dataset.reportId = report.id;
    const text = document.createElement('p');
    const resolution = report.resolution ?? { action: '?', statement: '' };
    text.textContent = `${REASONS[report.reason] ?? report.reason}: ${targetText(report.target)}. Decided: ${resolution.action}, “${resolution.statement}”`;
    item.append(text);
    const target = report.target;
    let undo;
    if (resolution.action === 'quarantine' && target?.type === 'file') {
      undo = ['Release the file', `/files/${encodeURIComponent(target.id)}/release`];
    } else if (resolution.action === 'suspend' && target?.accountId) {
      undo = ['Unsuspend the account', `/accounts/${encodeURIComponent(target.accountId)}/unsuspend`];
    }
    if (undo) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'secondary';
      button.textContent = undo[0];
      button.addEventListener('click', async () => {
        clearMessage();
        try {
          await admin('POST', undo[1]);
          showMessage(`${undo[0]}: done.`, 'ok');
        } catch (error) {
          fail(error);
        }
      });
      item.append(button);
    }
    return item;
  }

  async function loadReports() {
    const [open, decided] = await Promise.all([
      admin('GET', '/reports?status=open&limit=50'),
      admin('GET', '/reports?status=resolved&limit=10'),
    ]);
    const count = open.reports.length;
    byId('reports-caption').textContent =
      count === 0 ? 'No open reports.' : `${count}${open.nextCursor ? '+' : ''} open, newest first.`;
    byId('reports-list').replaceChildren(...open.reports.map(reportCard));
    byId('decided-list').replaceChildren(...decided.reports.map(decidedCard));
  }

  document.addEventListener('edgeshare:operator', (event) => {
    if (event.detail.signedIn) loadReports().catch(fail);
  });
  byId('reports-refresh').addEventListener('click', () => {
    clearMessage();
    loadReports().catch(fail);
  });
  if (sessionStorage.getItem('edgeshare.adminToken')) loadReports().catch(fail);
})();
