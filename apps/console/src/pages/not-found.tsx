import { BASE } from '../layout/nav.js';

export const NotFound = () => (
  <section>
    <h1>No such page</h1>
    <p>
      <a href={BASE}>Back to the overview</a>
    </p>
  </section>
);
