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

/** A free-text input of a filter form (`search`: one the browser offers to clear, and that skips autofill). */
export function TextFilter({ id, name, label, value, type = 'text' }: { id: string; name: string; label: string; value: string; type?: 'text' | 'search' }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} name={name} type={type} value={value} autocomplete={type === 'search' ? 'off' : undefined} />
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

/** One kind of bar of a BarChart: its key (the bar's class is `bar bar-<key>`) and what a bar of it says. */
export interface ChartSeries<K extends string> {
  key: K;
  label: (n: number) => string;
}

/**
 * A bar chart of days (inline SVG, one scale for the whole chart): per day, one bar per series, side
 * by side; a zero draws no bar. Each bar carries `data-day` and `data-count` and, given `href`, links
 * to `href(day, key)`.
 */
export function BarChart<K extends string>(props: {
  title: string;
  /** Said after the title, e.g. what the colours mean. */
  note: Child;
  /** The SVG's class and accessible name. */
  kind: string;
  label: string;
  days: readonly ({ day: string } & Record<K, number>)[];
  series: readonly ChartSeries<K>[];
  href?: (day: string, key: K) => string;
  data?: Record<string, string>;
}) {
  const W = 700;
  const H = 160;
  const top = 10;
  const bottom = 24;
  const plot = H - top - bottom;
  const slot = W / Math.max(props.days.length, 1);
  const barW = Math.max(2, Math.floor(slot / props.series.length - 3));
  const max = Math.max(1, ...props.days.flatMap((d) => props.series.map((s) => d[s.key])));
  const bar = (day: string, s: ChartSeries<K>, n: number, x: number) => {
    if (n === 0) return null;
    const h = Math.max(2, Math.round((n / max) * plot));
    const label = `${day}: ${s.label(n)}`;
    const shape = <rect x={String(x)} y={String(top + plot - h)} width={String(barW)} height={String(h)} rx="2" />;
    const attrs = { class: `bar bar-${s.key}`, 'data-day': day, 'data-count': String(n), 'aria-label': label };
    return props.href ? (
      <a href={props.href(day, s.key)} {...attrs}>
        <title>{label}</title>
        {shape}
      </a>
    ) : (
      <g {...attrs} role="img">
        <title>{label}</title>
        {shape}
      </g>
    );
  };
  const dataAttrs = Object.fromEntries(Object.entries(props.data ?? {}).map(([k, v]) => [`data-${k}`, v]));
  return (
    <figure class="chart" {...dataAttrs}>
      <figcaption>
        {props.title} <span class="muted">({props.note})</span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={props.label} class={props.kind}>
        <line x1="0" x2={String(W)} y1={String(top + plot + 0.5)} y2={String(top + plot + 0.5)} class="axis" />
        {props.days.map((d, i) => {
          const x = Math.round(i * slot + 2);
          return (
            <g class="day">
              {props.series.map((s, j) => bar(d.day, s, d[s.key], x + j * (barW + 1)))}
              {(props.days.length - 1 - i) % 2 === 0 && (
                <text x={String(x + (barW * props.series.length) / 2)} y={String(H - 6)} text-anchor="middle" class="tick">
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

const OUTCOMES: readonly ChartSeries<'success' | 'error'>[] = [
  { key: 'success', label: (n) => `${n} succeeded` },
  { key: 'error', label: (n) => `${n} failed` },
];

/**
 * The activity chart: per day, a green bar of successes and a red bar of failures; each bar links to
 * `href(day, outcome)`, the list of those runs.
 */
export function ActivityChart(props: {
  title: string;
  days: readonly { day: string; success: number; error: number }[];
  href: (day: string, status: 'success' | 'error') => string;
}) {
  const total = props.days.reduce((n, d) => n + d.success + d.error, 0);
  return (
    <BarChart
      title={props.title}
      note={`${total} finished in ${props.days.length} days; green succeeded, red failed`}
      kind="activity"
      label={`${props.title}: ${total} finished`}
      days={props.days}
      series={OUTCOMES}
      href={props.href}
    />
  );
}
