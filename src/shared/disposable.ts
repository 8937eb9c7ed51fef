/** Ownership of things to clean up: owners extend `Disposable` and register what they create. */

export interface IDisposable {
  dispose(): void;
}

export abstract class Disposable implements IDisposable {
  private readonly _disposables: IDisposable[] = [];
  private _isDisposed = false;

  protected get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Takes ownership of `d`; disposed with this object (at once if this one is already disposed). */
  protected _register<T extends IDisposable>(d: T): T {
    if (this._isDisposed) d.dispose();
    else this._disposables.push(d);
    return d;
  }

  dispose(): void {
    if (this._isDisposed) return;
    this._isDisposed = true;
    // Dispose in reverse order of creation, and keep going when one throws.
    while (this._disposables.length) {
      try {
        this._disposables.pop()!.dispose();
      } catch {
        // One failing cleanup must not leave the rest alive.
      }
    }
  }
}

/** Wraps a cleanup function. */
export function toDisposable(fn: () => void): IDisposable {
  let done = false;
  return {
    dispose() {
      if (!done) {
        done = true;
        fn();
      }
    },
  };
}

/** A minimal typed event: `event(listener)` subscribes and returns the unsubscribe. */
export class Emitter<T> implements IDisposable {
  private _listeners = new Set<(value: T) => void>();

  readonly event = (listener: (value: T) => void): IDisposable => {
    this._listeners.add(listener);
    return toDisposable(() => this._listeners.delete(listener));
  };

  fire(value: T): void {
    for (const l of [...this._listeners]) l(value);
  }

  dispose(): void {
    this._listeners.clear();
  }
}
