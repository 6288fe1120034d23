// The share page: shows each server-rendered UTC time in the reader's own time zone (the UTC
// text stays as the element's title).
const format = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});
for (const element of document.querySelectorAll('time[data-local]')) {
  const date = new Date(element.getAttribute('datetime') ?? '');
  if (Number.isNaN(date.getTime())) continue;
  element.title = element.textContent ?? '';
  element.textContent = format.format(date);
}
