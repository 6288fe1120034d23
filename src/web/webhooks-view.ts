// "Webhooks": the account's endpoints (add with the events to send, copy the secret once, delete)
// and each one's recent deliveries (status, attempts, last answer, resend).
import type { EdgeshareClient, Webhook, WebhookDelivery } from '../client/edgeshare.ts';
import { EVENT_TYPES } from '../events/event-types.ts';
import { button, byId, copyText, h } from './dom.ts';
import { formatDate } from './format.ts';

type Hooks = {
  client: () => EdgeshareClient | null;
  onError: (error: unknown) => void;
  announce: (text: string) => void;
};

export function createWebhooksView(hooks: Hooks) {
  const form = byId<HTMLFormElement>('webhook-form');
  const urlInput = byId<HTMLInputElement>('webhook-url');
  const allEvents = byId<HTMLInputElement>('webhook-all-events');
  const eventBoxes = EVENT_TYPES.map((type) => byId<HTMLInputElement>(`webhook-event-${type.replace('.', '-')}`));
  const secretBox = byId('webhook-secret-box');
  const secretField = byId<HTMLInputElement>('webhook-secret');
  const list = byId<HTMLUListElement>('webhooks-list');
  const deliveriesSection = byId('webhook-deliveries');
  const deliveriesBody = byId<HTMLTableSectionElement>('webhook-deliveries-body');
  const deliveriesCaption = byId('webhook-deliveries-caption');
  let shownFor: string | null = null;

  const syncBoxes = () => {
    for (const box of eventBoxes) box.disabled = allEvents.checked;
  };
  allEvents.addEventListener('change', syncBoxes);
  syncBoxes();

  async function load(): Promise<void> {
    const client = hooks.client();
    if (!client) return;
    try {
      render(await client.listWebhooks());
    } catch (error) {
      hooks.onError(error);
    }
  }

  function render(webhooks: Webhook[]): void {
    list.replaceChildren(
      ...webhooks.map((webhook) =>
        h(
          'li',
          { class: 'webhook', attrs: { 'data-id': webhook.id } },
          h('code', { text: webhook.url }),
          h('span', { class: 'muted', text: ` ${webhook.events.join(', ')} ` }),
          button('Deliveries', { class: 'secondary', onClick: () => void showDeliveries(webhook) }),
          button('Delete', { class: 'danger', onClick: () => void remove(webhook) }),
        ),
      ),
    );
    if (webhooks.length === 0) list.append(h('li', { class: 'muted', text: 'No webhooks yet.' }));
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const client = hooks.client();
    if (!client) return;
    const events = allEvents.checked ? ['*' as const] : EVENT_TYPES.filter((_, index) => eventBoxes[index]?.checked);
    try {
      const created = await client.createWebhook({ url: urlInput.value.trim(), events });
      secretField.value = created.secret;
      secretBox.hidden = false;
      urlInput.value = '';
      hooks.announce('Webhook added. Copy its secret now: it is shown only once.');
      await load();
    } catch (error) {
      hooks.onError(error);
    }
  });

  byId('webhook-secret-copy').addEventListener('click', async () => {
    const copied = await copyText(secretField.value, secretField);
    hooks.announce(copied ? 'Secret copied.' : 'Copy the secret from the field.');
  });
  byId('webhook-secret-done').addEventListener('click', () => {
    secretField.value = '';
    secretBox.hidden = true;
  });

  async function remove(webhook: Webhook): Promise<void> {
    const client = hooks.client();
    if (!client) return;
    if (!window.confirm(`Delete the webhook to ${webhook.url}? Nothing more is sent to it.`)) return;
    try {
      await client.deleteWebhook(webhook.id);
      if (shownFor === webhook.id) hideDeliveries();
      hooks.announce('Webhook deleted.');
      await load();
    } catch (error) {
      hooks.onError(error);
    }
  }

  function hideDeliveries(): void {
    shownFor = null;
    deliveriesSection.hidden = true;
    deliveriesBody.replaceChildren();
  }

  async function showDeliveries(webhook: Webhook): Promise<void> {
    const client = hooks.client();
    if (!client) return;
    try {
      const deliveries = await client.webhookDeliveries(webhook.id, { limit: 50 });
      shownFor = webhook.id;
      deliveriesCaption.textContent = `Recent deliveries to ${webhook.url} (kept 7 days)`;
      deliveriesBody.replaceChildren(...deliveries.map((delivery) => row(webhook, delivery)));
      if (deliveries.length === 0) {
        deliveriesBody.append(h('tr', {}, h('td', { text: 'No deliveries yet.', attrs: { colspan: '6' } })));
      }
      deliveriesSection.hidden = false;
    } catch (error) {
      hooks.onError(error);
    }
  }

  function row(webhook: Webhook, delivery: WebhookDelivery): HTMLTableRowElement {
    return h(
      'tr',
      { attrs: { 'data-id': delivery.id } },
      h('td', { text: delivery.type, attrs: { 'data-label': 'Event' } }),
      h('td', { class: `status ${delivery.status}`, text: delivery.status, attrs: { 'data-label': 'Status' } }),
      h('td', { text: String(delivery.attempts), attrs: { 'data-label': 'Attempts' } }),
      h('td', {
        text: delivery.lastStatusCode === null ? (delivery.lastError ?? '–') : String(delivery.lastStatusCode),
        attrs: { 'data-label': 'Last answer' },
      }),
      h('td', { text: formatDate(delivery.createdAt), attrs: { 'data-label': 'Created' } }),
      h(
        'td',
        { class: 'actions', attrs: { 'data-label': 'Actions' } },
        button('Resend', {
          class: 'secondary',
          onClick: async () => {
            const client = hooks.client();
            if (!client) return;
            try {
              await client.retryDelivery(webhook.id, delivery.id);
              hooks.announce('Delivery queued again.');
              await showDeliveries(webhook);
            } catch (error) {
              hooks.onError(error);
            }
          },
        }),
      ),
    );
  }

  return {
    load,
    clear(): void {
      list.replaceChildren();
      hideDeliveries();
      secretField.value = '';
      secretBox.hidden = true;
    },
  };
}
