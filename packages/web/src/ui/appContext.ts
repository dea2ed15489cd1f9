import type { HostClient } from '@outrigger/host-api';
import { createContext, useContext } from 'react';
import type { Drafts } from '../data/drafts.ts';
import type { HostStore } from '../data/hostStore.ts';
import type { Outbox } from '../data/outbox.ts';

/** The data layer the views use; created once in `main.tsx`. */
export interface AppServices {
  client: HostClient;
  host: HostStore;
  outbox: Outbox;
  drafts: Drafts;
}

export const AppContext = createContext<AppServices | null>(null);

export function useServices(): AppServices {
  const services = useContext(AppContext);
  if (services === null) throw new Error('AppContext is missing');
  return services;
}
