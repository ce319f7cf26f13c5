import { TrafficCharts } from '../components/traffic-charts.js';
import { UsageCharts } from '../components/usage-charts.js';

/** The whole relay at a glance: money and units per day, traffic over the last hours. */
export function OverviewPage() {
  return (
    <>
      <h1>Overview</h1>
      <UsageCharts path="/usage/daily" title="Usage, all accounts" />
      <TrafficCharts />
    </>
  );
}
