import { useState } from 'preact/hooks';
import { admin } from '../api/client.js';
import type { ChannelPatch, ChannelView } from '../api/types.js';
import { useAdmin } from '../api/use-admin.js';
import { DataTable } from '../components/data-table.js';
import { count, dateTime } from '../components/format.js';
import { ErrorNote, Loading } from '../components/status.js';
import './channels.css';

const percent = (share: number) => `${Math.round(share * 100)} %`;

/** "20 at once, 500/min, shared by acct-1", or "no limit of its own". */
function capacity(c: ChannelView) {
  const parts = [c.maxConcurrent ? `${count(c.maxConcurrent)} at once` : '', c.maxPerMinute ? `${count(c.maxPerMinute)}/min` : ''].filter(
    Boolean,
  );
  const own = parts.length ? parts.join(', ') : 'no limit of its own';
  return c.capacityGroup ? `${own}, shared by ${c.capacityGroup}` : own;
}

/** The state of a channel's breaker in words, with when an open one may be tried again. */
function State({ channel }: { channel: ChannelView }) {
  const labels: Record<ChannelView['state'], string> = {
    closed: 'healthy',
    open: 'open',
    exhausted: 'quota exhausted',
    'half-open': 'half-open (next call probes)',
    disabled: 'disabled',
  };
  const why = channel.disabledReason ?? channel.exhaustedReason;
  return (
    <span class={`state state-${channel.state}`} title={why ?? undefined}>
      {labels[channel.state]}
      {(channel.state === 'open' || channel.state === 'exhausted') && channel.openUntil ? ` until ${dateTime(channel.openUntil)}` : ''}
      {(channel.state === 'disabled' || channel.state === 'exhausted') && why ? `: ${why}` : ''}
    </span>
  );
}

/** Said plainly when channels point at the upstream simulator: "healthy" there says nothing of the vendor. */
function SimulatedNotice({ channels }: { channels: ChannelView[] }) {
  const simulated = channels.filter((c) => c.simulated && !c.disabled);
  if (simulated.length === 0) return null;
  return (
    <p class="notice" role="note" aria-label="Simulated upstream">
      <strong>Simulated upstream.</strong> {simulated.map((c) => c.id).join(', ')} {simulated.length === 1 ? 'points' : 'point'} at the
      upstream simulator: the images and audio are made up, and “healthy” is the simulator's health, not the vendor's. npm start uses the
      simulator unless ARK_BASE_URL and ARK_API_KEY (GEMINI_BASE_URL and GEMINI_API_KEY for speech) are set.
    </p>
  );
}

/**
 * The upstream channels: each one's breaker, calls in flight across the workers, recent
 * failures and latency, refreshed every 5 s; a channel taken out of service and put back.
 */
export function ChannelsPage() {
  const channels = useAdmin<{ channels: ChannelView[] }>('/channels', 5_000);
  const [error, setError] = useState<string>();
  const patch = async (id: string, body: ChannelPatch) => {
    try {
      await admin('PATCH', `/channels/${encodeURIComponent(id)}`, body);
      setError(undefined);
      channels.reload();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <>
      <h1>Channels</h1>
      <p>
        Each way to reach an upstream: the configured ones and those added with <code>npm run admin -- channels add</code>. Calls go to the
        best tier's healthy channels by weight; a failing one's breaker opens and it is probed again after the cooldown. Refreshed every 5
        seconds.
      </p>
      <ErrorNote error={error} />
      <SimulatedNotice channels={channels.data?.channels ?? []} />
      <Loading ready={channels.data !== undefined} error={channels.error}>
        <DataTable<ChannelView>
          caption="Upstream channels"
          rows={channels.data?.channels ?? []}
          rowKey={(c) => c.id}
          columns={[
            {
              label: 'Channel',
              cell: (c) => (
                <>
                  <strong>{c.id}</strong>
                  <br />
                  <small class="muted">
                    {c.upstream}
                    {c.source === 'config' ? ', from the configuration' : ''}
                  </small>
                </>
              ),
            },
            {
              label: 'State',
              cell: (c) => (
                <>
                  <State channel={c} />
                  {c.simulated ? (
                    <>
                      <br />
                      <span class="badge">simulated upstream</span>
                    </>
                  ) : null}
                </>
              ),
            },
            { label: 'In flight', numeric: true, cell: (c) => count(c.inFlight) },
            { label: 'Recent calls', numeric: true, cell: (c) => `${count(c.recentCalls)}, ${percent(c.recentFailureShare)} failed` },
            { label: 'Latency', numeric: true, cell: (c) => (c.latencyMs === null ? '—' : `${count(c.latencyMs)} ms`) },
            { label: 'Tier / weight', numeric: true, cell: (c) => `${c.priority} / ${c.weight}` },
            { label: 'Capacity', cell: (c) => capacity(c) },
            {
              label: 'Service',
              cell: (c) =>
                c.disabled ? (
                  <button
                    type="button"
                    class="small"
                    onClick={() => patch(c.id, { disabled: false })}
                    aria-label={`Enable channel ${c.id}`}
                  >
                    Enable
                  </button>
                ) : (
                  <button
                    type="button"
                    class="secondary outline small"
                    onClick={() => patch(c.id, { disabled: true })}
                    aria-label={`Disable channel ${c.id}`}
                  >
                    Disable
                  </button>
                ),
            },
          ]}
        />
      </Loading>
    </>
  );
}
