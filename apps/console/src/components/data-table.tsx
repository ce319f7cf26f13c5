import type { ComponentChildren, JSX } from 'preact';

export interface Column<Row> {
  label: string;
  cell: (row: Row) => ComponentChildren;
  /** Numbers align right. */
  numeric?: boolean;
}

/** A table that scrolls sideways on a phone instead of squeezing; empty says so. */
export function DataTable<Row>({
  rows,
  columns,
  caption,
  rowKey,
  empty = 'Nothing yet.',
}: {
  rows: Row[];
  columns: Array<Column<Row>>;
  caption: string;
  rowKey: (row: Row) => string;
  empty?: string;
}): JSX.Element {
  return (
    <div class="table-scroll" role="region" aria-label={caption} tabIndex={0}>
      <table class="striped">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" class={c.numeric ? 'num' : undefined}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} class="muted">
                {empty}
              </td>
            </tr>
          ) : (
            rows.map((row) => (
              <tr key={rowKey(row)}>
                {columns.map((c) => (
                  <td class={c.numeric ? 'num' : undefined}>{c.cell(row)}</td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
