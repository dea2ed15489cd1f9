import type { ReactNode } from 'react';
import { Icon } from './Icon.tsx';

/**
 * The bar above every page: the phone's drawer button, the page's heading and a line under it, then
 * whatever the page puts on the right.
 */
export function Topbar({
  heading,
  headingId,
  subtitle,
  onOpenSidebar,
  children,
}: {
  heading: string;
  headingId?: string;
  subtitle?: ReactNode;
  onOpenSidebar: () => void;
  children?: ReactNode;
}) {
  return (
    <header className="topbar">
      <button type="button" className="icon-btn menu-toggle" aria-label="Open the session list" onClick={onOpenSidebar}>
        <Icon name="menu" />
      </button>
      <div className="topbar-title">
        <h1 id={headingId}>{heading}</h1>
        {subtitle}
      </div>
      {children}
    </header>
  );
}
