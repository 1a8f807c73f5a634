// The corner messages of useToasts.

import "./toasts.css";

/** Renders toasts; errors are announced as alerts. */
export default function Toasts({ toasts, dismiss }) {
  return (
    <div className="pw-toasts" aria-live="polite">
      {toasts.map((toast) => (
        <div
          key={toast.id}
          className={`pw-toast pw-toast-${toast.kind}`}
          role={toast.kind === "error" ? "alert" : "status"}
        >
          <div className="pw-toast-body">
            <div>
              {toast.message}
              {toast.link ? (
                <>
                  {" "}
                  <a href={toast.link.href}>{toast.link.label}</a>
                </>
              ) : null}
            </div>
            {toast.details.length ? (
              <ul>
                {toast.details.slice(0, 8).map((detail, index) => (
                  <li key={index}>{detail}</li>
                ))}
              </ul>
            ) : null}
          </div>
          <button
            type="button"
            className="pw-icon-button"
            aria-label="Dismiss"
            onClick={() => dismiss(toast.id)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
