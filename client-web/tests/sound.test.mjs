// Unit tests for the sounds (js/sound.js) against a stand-in AudioContext: what each sound starts, a
// capture heard stone by stone up to a handful, and the mute switch kept in storage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSounds } from '../js/sound.js';

/** An AudioContext stand-in recording each source started: 'click' (noise) or 'tone:<Hz>'. */
function fakeAudio(started) {
  const param = () => ({ value: 0, setValueAtTime() {}, exponentialRampToValueAtTime() {} });
  const node = (extra = {}) => ({ connect: (next) => next, ...extra });
  return class {
    constructor() {
      this.state = 'running';
      this.currentTime = 0;
      this.sampleRate = 8000;
      this.destination = node();
    }
    createBuffer(_channels, frames) { return { getChannelData: () => new Float32Array(frames) }; }
    createBufferSource() { return node({ start: () => started.push('click') }); }
    createBiquadFilter() { return node({ frequency: param() }); }
    createGain() { return node({ gain: param() }); }
    createOscillator() {
      const osc = node({ frequency: param(), stop() {} });
      osc.start = () => started.push(`tone:${osc.frequency.value}`);
      return osc;
    }
  };
}

function memoryStorage() {
  const data = new Map();
  return { getItem: (k) => data.get(k) ?? null, setItem: (k, v) => data.set(k, String(v)) };
}

test('a stone clicks and knocks, a capture lifts each stone up to four, a call beeps', () => {
  const started = [];
  const sounds = createSounds({ storage: memoryStorage(), audioContext: fakeAudio(started) });
  sounds.stone();
  assert.deepEqual(started, ['click', 'tone:190']);
  sounds.capture(2);
  sounds.capture(30);
  assert.equal(started.filter((s) => s === 'click').length, 1 + 2 + 4);
  sounds.call(false);
  sounds.call(true);
  assert.deepEqual(started.slice(-2), ['tone:880', 'tone:1320']);
});

test('muted, nothing starts, and the choice is kept for the next page', () => {
  const started = [];
  const storage = memoryStorage();
  createSounds({ storage, audioContext: fakeAudio(started) }).setMuted(true);
  const again = createSounds({ storage, audioContext: fakeAudio(started) });
  assert.equal(again.muted(), true);
  again.stone();
  again.capture(1);
  again.call();
  assert.deepEqual(started, []);
  again.setMuted(false);
  again.stone();
  assert.equal(started.length, 2);
});
