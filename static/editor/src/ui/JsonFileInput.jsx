// The hidden file input behind an "Import" button: a JSON file, chosen again and again.

/** Hidden; `ref.current.click()` opens the file chooser, `onChoose(file)` gets the file. */
export default function JsonFileInput({ ref, label = "Pipeline JSON file", onChoose }) {
  return (
    <input
      ref={ref}
      type="file"
      accept="application/json,.json"
      hidden
      aria-label={label}
      onChange={(event) => {
        const chosen = event.target.files?.[0];
        event.target.value = ""; // the same file chosen twice still counts
        if (chosen) onChoose(chosen);
      }}
    />
  );
}
