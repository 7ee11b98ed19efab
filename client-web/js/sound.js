// The game's sounds, made on the spot with WebAudio (no audio files to download): a stone set down on
// the board, the stones a capture picks up, and the short beep under each byo-yomi call. One mute
// switch covers them all (and the spoken calls), remembered per browser in localStorage.
//
//   const sounds = createSounds({ storage: localStorage });
//   sounds.stone(); sounds.capture(2); sounds.call(); sounds.setMuted(true);
//
// The AudioContext is made at the first sound, not at load: browsers start it suspended until the page
// has had a user gesture, and a context nobody needs is not worth holding.

const MUTE_KEY = 'tengen.sound';
/** Captured stones heard one by one, up to this many: a big capture is a handful, not a long rattle. */
const CAPTURE_CLICKS_MAX = 4;

/** A short burst of filtered noise at `at` seconds: the click of a stone on wood. */
function click(audio, at, { pitch = 1800, gain = 0.6, length = 0.06 } = {}) {
  const frames = Math.max(1, Math.floor(audio.sampleRate * length));
  const buffer = audio.createBuffer(1, frames, audio.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < frames; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / frames) ** 3;
  const source = audio.createBufferSource();
  source.buffer = buffer;
  const filter = audio.createBiquadFilter();
  filter.type = 'bandpass';
  filter.frequency.value = pitch;
  const level = audio.createGain();
  level.gain.value = gain;
  source.connect(filter).connect(level).connect(audio.destination);
  source.start(at);
}

/** A sine tone of `hz` for `length` seconds at `at`, fading out. */
function tone(audio, at, hz, length, gain = 0.25) {
  const osc = audio.createOscillator();
  osc.frequency.value = hz;
  const level = audio.createGain();
  level.gain.setValueAtTime(gain, at);
  level.gain.exponentialRampToValueAtTime(0.001, at + length);
  osc.connect(level).connect(audio.destination);
  osc.start(at);
  osc.stop(at + length);
}

export function createSounds({ storage = globalThis.localStorage, audioContext = globalThis.AudioContext ?? globalThis.webkitAudioContext } = {}) {
  let muted = storage?.getItem(MUTE_KEY) === 'off';
  let ctx = null;

  function context() {
    if (muted || !audioContext) return null;
    if (!ctx) {
      try {
        ctx = new audioContext();
      } catch {
        return null;
      }
    }
    // Resumes once the page has had a gesture; before that the sound is simply not heard.
    if (ctx.state === 'suspended') ctx.resume?.().catch(() => {});
    return ctx;
  }

  return {
    muted: () => muted,
    setMuted(next) {
      muted = !!next;
      storage?.setItem(MUTE_KEY, muted ? 'off' : 'on');
      if (muted) globalThis.speechSynthesis?.cancel?.();
    },
    /** A stone played (anyone's): a click and the low knock of the board. */
    stone() {
      const audio = context();
      if (!audio) return;
      const now = audio.currentTime;
      click(audio, now);
      tone(audio, now, 190, 0.09, 0.3);
    },
    /** `count` stones captured: a stone lifted off the board for each, after the move's own click. */
    capture(count) {
      const audio = context();
      if (!audio) return;
      const now = audio.currentTime + 0.15;
      for (let i = 0; i < Math.min(count, CAPTURE_CLICKS_MAX); i++) click(audio, now + i * 0.08, { pitch: 3200, gain: 0.45, length: 0.04 });
    },
    /** The beep under a byo-yomi call (the call itself is spoken by the caller). */
    call(last = false) {
      const audio = context();
      if (!audio) return;
      tone(audio, audio.currentTime, last ? 1320 : 880, 0.12);
    },
    /** Speak `text` in `lang` ('zh' or 'en') unless muted or the browser cannot. */
    say(text, lang) {
      if (muted || !globalThis.speechSynthesis || !globalThis.SpeechSynthesisUtterance) return;
      const utterance = new SpeechSynthesisUtterance(text);
      utterance.lang = lang === 'zh' ? 'zh-CN' : 'en-US';
      speechSynthesis.speak(utterance);
    },
  };
}
