import './zodConfig.ts';
import { HostClient } from '@outrigger/host-api';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Drafts } from '../data/drafts.ts';
import { HostStore } from '../data/hostStore.ts';
import { Outbox } from '../data/outbox.ts';
import { browserTabShare } from '../data/tabShare.ts';
import { App } from './App.tsx';
import { AppContext, type AppServices } from './appContext.ts';
import './styles.css';

// Same origin as the host: the HttpOnly cookie set on the first `/?token=` load authenticates.
const client = new HostClient();
const storage = typeof localStorage === 'undefined' ? undefined : localStorage;
const services: AppServices = {
  client,
  // The tabs of this host follow one host stream between them (a browser allows six connections per host).
  host: new HostStore(client, { share: browserTabShare(`outrigger-host-stream ${location.host}`) }),
  outbox: new Outbox({
    post: (sessionId, body) => client.call('postTurn', { params: { id: sessionId }, body }),
    storage,
  }),
  drafts: new Drafts(storage),
};
void services.host.start();
services.outbox.resume();
for (const event of ['online', 'visibilitychange'])
  window.addEventListener(event, () => {
    if (document.visibilityState === 'visible') services.host.reconnectNow();
  });

// The token has done its work (the host set the cookie): keep it out of the address bar and history.
if (new URLSearchParams(window.location.search).has('token'))
  history.replaceState(null, '', window.location.pathname + window.location.hash);

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <AppContext.Provider value={services}>
      <App />
    </AppContext.Provider>
  </StrictMode>,
);
