// The choices the web app offers under the service's policy (GET /api/v2/policy): expiries
// within a bound, "never" only where nothing must expire, and the fields a bound makes required.
// The server refuses anything else (422 POLICY_VIOLATION); the page offers only what it takes.
import type { Policy } from '../client/edgeshare.ts';
import { EXPIRY_CHOICES } from '../lib/web-settings.ts';
import { h } from './dom.ts';

export type Choice = { label: string; seconds: number };

/** No bound at all: what the app assumes until the policy is read (the server judges anyway). */
export const OPEN_POLICY: Policy = {
  linkMaxExpirySeconds: null,
  linkRequireExpiry: null,
  linkRequirePassword: null,
  linkMaxDownloads: null,
  passwordMinLength: null,
  fileMaxExpirySeconds: null,
  fileRequireExpiry: null,
  requestMaxExpirySeconds: null,
  requestMaxBytes: null,
  e2eAllowed: true,
};

const UNITS: [number, string][] = [
  [86_400, 'day'],
  [3600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

/** A whole number of seconds as people say it: `2 days`, `90 minutes`. */
export function formatDuration(seconds: number): string {
  const [size, unit] = UNITS.find(([size]) => seconds % size === 0) ?? [1, 'second'];
  const count = seconds / size;
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** The fixed expiry choices up to `max`, and `max` itself when it is none of them (null: all of them). */
export function expiryChoices(max: number | null): Choice[] {
  if (max === null) return [...EXPIRY_CHOICES];
  const within = EXPIRY_CHOICES.filter((choice) => choice.seconds <= max);
  if (!within.some((choice) => choice.seconds === max)) within.push({ label: formatDuration(max), seconds: max });
  return within;
}

/** Whether "never expires" may be chosen: nothing requires an expiry and nothing bounds it. */
export const neverAllowed = (required: boolean | null, max: number | null) => required !== true && max === null;

/**
 * Fills an expiry <select>: `first` (a choice with the value '', e.g. "Never"), when given, then
 * each choice ("In 1 day", or with `prefix` ''  "1 day"). The one selected (also after a form
 * reset) is `chosen` where offered, else `first`, else the longest choice.
 */
export function fillExpirySelect(
  select: HTMLSelectElement,
  choices: Choice[],
  options: { first?: string; chosen?: number; prefix?: string } = {},
): void {
  const prefix = options.prefix ?? 'In ';
  // What the person picked before the bounds arrived stays picked while it is still offered.
  const picked =
    select.selectedIndex >= 0 && !select.options[select.selectedIndex]?.defaultSelected ? select.value : null;
  const items = choices.map((choice) =>
    h('option', { text: `${prefix}${choice.label}`, attrs: { value: String(choice.seconds) } }),
  );
  const first = options.first === undefined ? [] : [h('option', { text: options.first, attrs: { value: '' } })];
  select.replaceChildren(...first, ...items);
  const selected = items.find((item) => item.value === String(options.chosen)) ?? first[0] ?? items.at(-1);
  if (selected) {
    selected.defaultSelected = true;
    selected.selected = true;
  }
  const kept = [...first, ...items].find((item) => item.value === picked);
  if (kept) kept.selected = true;
}

/** A password field under passwordMinLength (and, for links, linkRequirePassword). */
export function boundPassword(input: HTMLInputElement, label: HTMLElement, policy: Policy, required: boolean): void {
  input.required = required;
  if (policy.passwordMinLength === null) input.removeAttribute('minlength');
  else input.minLength = policy.passwordMinLength;
  const least = policy.passwordMinLength === null ? '' : `, at least ${policy.passwordMinLength} characters`;
  label.textContent = `Password (${required ? 'required' : 'optional'}${least})`;
}
