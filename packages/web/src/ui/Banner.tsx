import type { ReactNode } from 'react';
import { Icon } from './Icon.tsx';

/**
 * A line across the top of a page that says something went wrong (`alert`, red) or is degraded
 * (`warn`, amber, a polite status), with what to do about it on the right.
 */
export function Banner({
  tone = 'alert',
  action,
  children,
}: {
  tone?: 'alert' | 'warn';
  action?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className={tone === 'warn' ? 'banner warn' : 'banner'} role={tone === 'warn' ? 'status' : 'alert'}>
      <Icon name="alert" />
      <span className="grow">{children}</span>
      {action}
    </div>
  );
}
