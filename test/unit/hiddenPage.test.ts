import { strict as assert } from 'node:assert';
import { pageWhenHidden, type PageHost } from '../../src/extension/hiddenPage.ts';
import { Emitter } from '../../src/shared/disposable.ts';

/** A view as VS Code shows it: visible or not, its page's HTML, and an event when it is shown or hidden. */
class FakeView implements PageHost {
  visible = true;
  readonly webview = { html: 'first page' };
  private readonly _changed = new Emitter<void>();
  readonly onDidChangeVisibility = this._changed.event;

  setVisible(visible: boolean): void {
    this.visible = visible;
    this._changed.fire();
  }
}

describe('the page of a view hidden and shown again', () => {
  it('holds the latest picture: the HTML is made again once the view is hidden', () => {
    const view = new FakeView();
    let picture = 'rows when first made';
    const sub = pageWhenHidden(view, () => `page with ${picture}`);
    picture = 'the last reply';
    view.setVisible(false);
    assert.equal(view.webview.html, 'page with the last reply');
    sub.dispose();
  });

  it('leaves a visible page alone (setting its HTML would load it again)', () => {
    const view = new FakeView();
    const sub = pageWhenHidden(view, () => 'another page');
    view.setVisible(true);
    assert.equal(view.webview.html, 'first page');
    sub.dispose();
  });

  it('keeps the HTML when there is nothing new to draw into it', () => {
    const view = new FakeView();
    const sub = pageWhenHidden(view, () => undefined);
    view.setVisible(false);
    assert.equal(view.webview.html, 'first page');
    sub.dispose();
  });

  it('no longer makes the page once the view is dropped', () => {
    const view = new FakeView();
    const sub = pageWhenHidden(view, () => 'another page');
    sub.dispose();
    view.setVisible(false);
    assert.equal(view.webview.html, 'first page');
  });
});
