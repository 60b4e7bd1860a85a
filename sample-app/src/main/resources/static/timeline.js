// Progressive enhancement of the server-rendered page: the Replay button and a live stock table.
const button = document.getElementById('replay-button');
const replayStatus = document.getElementById('replay-status');
const stockStatus = document.getElementById('stock-status');

// Runs POST /replay, then redraws the timeline from the server-rendered page.
async function replay() {
  button.disabled = true;
  replayStatus.textContent = 'Replaying: A waits out its lease…';
  try {
    const response = await fetch('replay', { method: 'POST' });
    if (!response.ok) {
      const problem = await response.json().catch(() => ({}));
      throw new Error(problem.detail || `POST /replay answered ${response.status}`);
    }
    const page = await fetch('.');
    const fresh = new DOMParser().parseFromString(await page.text(), 'text/html').getElementById('timeline');
    if (!page.ok || fresh === null) {
      throw new Error(`the page answered ${page.status} without a timeline`);
    }
    document.getElementById('timeline').replaceWith(fresh);
    replayStatus.textContent = `Replay ${fresh.dataset.replay} drawn.`;
    await refreshStock();
  }
  catch (error) {
    replayStatus.textContent = `Replay failed: ${error.message}`;
  }
  finally {
    button.disabled = false;
  }
}

async function refreshStock() {
  try {
    const response = await fetch('stock');
    if (!response.ok) {
      throw new Error(`GET /stock answered ${response.status}`);
    }
    const rows = await response.json();
    document.getElementById('stock-rows').replaceChildren(...rows.map((row) => {
      const tr = document.createElement('tr');
      for (const value of [row.sku, row.quantity, row.lastToken]) {
        const td = document.createElement('td');
        td.textContent = value;
        tr.append(td);
      }
      return tr;
    }));
    stockStatus.textContent = '';
  }
  catch (error) {
    stockStatus.textContent = `Not refreshed: ${error.message}`;
  }
}

button.hidden = false;
button.addEventListener('click', replay);
setInterval(refreshStock, 2000);
