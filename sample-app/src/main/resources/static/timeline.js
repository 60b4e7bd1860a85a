// Progressive enhancement of the server-rendered page: the Replay button and a live stock table.
const button = document.getElementById('replay-button');
const status = document.getElementById('replay-status');

// Runs POST /replay, then redraws the timeline from the server-rendered page.
async function replay() {
  button.disabled = true;
  status.textContent = 'Replaying: A waits out its lease…';
  try {
    const response = await fetch('replay', { method: 'POST' });
    if (!response.ok) {
      throw new Error(`POST /replay answered ${response.status}`);
    }
    const page = new DOMParser().parseFromString(await (await fetch('.')).text(), 'text/html');
    document.getElementById('timeline').replaceWith(page.getElementById('timeline'));
    status.textContent = '';
    await refreshStock();
  }
  catch (error) {
    status.textContent = `Replay failed: ${error.message}`;
  }
  finally {
    button.disabled = false;
  }
}

async function refreshStock() {
  try {
    const rows = await (await fetch('stock')).json();
    document.getElementById('stock-rows').replaceChildren(...rows.map((row) => {
      const tr = document.createElement('tr');
      for (const value of [row.sku, row.quantity, row.lastToken]) {
        const td = document.createElement('td');
        td.textContent = value;
        tr.append(td);
      }
      return tr;
    }));
  }
  catch (error) {
    status.textContent = `Stock not refreshed: ${error.message}`;
  }
}

button.hidden = false;
button.addEventListener('click', replay);
setInterval(refreshStock, 2000);
