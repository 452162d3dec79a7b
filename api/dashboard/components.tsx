/**
 * @module api/dashboard/components — the list-page pieces the dashboard's pages share: the filter
 * form and its fields, the data table frame and the pager.
 */
import type { Child } from 'hono/jsx';
import type { Integration } from '../../features/integrations/store.js';

/** A GET form of filters (`action` is the page itself), with a Filter button and, given `clearHref`, a Clear link. */
export function FilterForm({ action, label, clearHref, children }: { action: string; label: string; clearHref?: string; children?: Child }) {
  return (
    <form method="get" action={action} class="filters" role="search" aria-label={label}>
      {children}
      <div class="actions">
        <button type="submit" class="btn">
          Filter
        </button>
        {clearHref && (
          <a href={clearHref} class="btn btn-quiet">
            Clear
          </a>
        )}
      </div>
    </form>
  );
}

/** A select of a filter form: "Any" (empty), then the options: values shown as they are, or a record of value → label. */
export function SelectFilter(props: { id: string; name: string; label: string; value: string; options: readonly string[] | Readonly<Record<string, string>> }) {
  const options: [string, string][] = Array.isArray(props.options) ? props.options.map((o: string) => [o, o]) : Object.entries(props.options);
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.name}>
        <option value="">Any</option>
        {options.map(([value, label]) => (
          <option value={value} selected={props.value === value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The "Integration" select of a filter form (`integration=<unique key>`). */
export function IntegrationFilter({ id, value, integrations }: { id: string; value: string; integrations: readonly Integration[] }) {
  return <SelectFilter id={id} name="integration" label="Integration" value={value} options={integrations.map((i) => i.uniqueKey)} />;
}

/** A free-text input of a filter form. */
export function TextFilter({ id, name, label, value }: { id: string; name: string; label: string; value: string }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} name={name} type="text" value={value} />
    </div>
  );
}

/** A scrollable table with a caption for screen readers and one header row (falsy columns are left out); `children` are its body rows. */
export function DataTable(props: { caption: Child; class?: string; columns: readonly (string | false | undefined)[]; children?: Child }) {
  return (
    <div class="table-wrap">
      <table class={props.class}>
        <caption class="sr-only">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.filter(Boolean).map((name) => (
              <th scope="col">{name}</th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** The links to other pages of a list. */
export function Pager({ label = 'Pages', children }: { label?: string; children?: Child }) {
  return (
    <nav class="pager" aria-label={label}>
      {children}
    </nav>
  );
}

/**
 * The activity chart: per day, a green bar of successes and a red bar of failures (inline SVG, one
 * scale for the whole chart); each bar links to `href(day, outcome)`, the list of those runs.
 */
export function ActivityChart(props: {
  title: string;
  days: readonly { day: string; success: number; error: number }[];
  href: (day: string, status: 'success' | 'error') => string;
}) {
  const W = 700;
  const H = 160;
  const top = 10;
  const bottom = 24;
  const plot = H - top - bottom;
  const slot = W / Math.max(props.days.length, 1);
  const barW = Math.max(2, Math.floor(slot / 2 - 3));
  const max = Math.max(1, ...props.days.flatMap((d) => [d.success, d.error]));
  const total = props.days.reduce((n, d) => n + d.success + d.error, 0);
  const bar = (day: string, status: 'success' | 'error', n: number, x: number) => {
    if (n === 0) return null;
    const h = Math.max(2, Math.round((n / max) * plot));
    const label = `${day}: ${n} ${status === 'success' ? 'succeeded' : 'failed'}`;
    return (
      <a href={props.href(day, status)} class={`bar bar-${status}`} data-day={day} data-count={String(n)} aria-label={label}>
        <title>{label}</title>
        <rect x={String(x)} y={String(top + plot - h)} width={String(barW)} height={String(h)} rx="2" />
      </a>
    );
  };
  return (
    <figure class="chart">
      <figcaption>
        {props.title}{' '}
        <span class="muted">
          ({total} finished in {props.days.length} days; green succeeded, red failed)
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${props.title}: ${total} finished`} class="activity">
        <line x1="0" x2={String(W)} y1={String(top + plot + 0.5)} y2={String(top + plot + 0.5)} class="axis" />
        {props.days.map((d, i) => {
          const x = Math.round(i * slot + 2);
          return (
            <g>
              {bar(d.day, 'success', d.success, x)}
              {bar(d.day, 'error', d.error, x + barW + 1)}
              {(props.days.length - 1 - i) % 2 === 0 && (
                <text x={String(x + barW)} y={String(H - 6)} text-anchor="middle" class="tick">
                  {d.day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
