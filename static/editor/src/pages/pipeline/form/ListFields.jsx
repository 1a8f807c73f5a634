// The params form's compound fields: lists of values, lists of objects (or of a tagged
// union's variants), and objects, each with its own fields.

import { useState } from "react";
import {
  defaultValue,
  foldedObject,
  enumOptions,
  parseScalar,
  pathKey,
  scalarText,
  setIn,
  splitNullable,
  unionVariants,
} from "./schemaForm.js";
import { AddButton, OptionSelect, RemoveButton, useFocusAdded } from "./controls.jsx";
import Field from "./Field.jsx";

/** A list of strings or scalars, one input (or select) per item. */
export function ValueList({ id, context, field, value, required, onChange, scalar }) {
  const items = Array.isArray(value) ? value : Array.isArray(field.default) ? field.default : [];
  const item = splitNullable(field.items ?? {}, context.root).schema;
  const itemOptions = enumOptions(item, context.root);
  const update = (next) => onChange(next.length || required ? next : undefined);
  const { box, added } = useFocusAdded();
  return (
    <div className="pw-rows" role="group" aria-labelledby={`${id}-label`} ref={box}>
      {items.map((entry, index) => (
        <div className="pw-row" key={index} data-item="">
          {itemOptions ? (
            <OptionSelect
              aria-label={`${field.title ?? "value"} ${index + 1}`}
              options={itemOptions}
              value={entry}
              onChange={(option) => update(items.map((old, at) => (at === index ? option : old)))}
            />
          ) : (
            <input
              type="text"
              aria-label={`${field.title ?? "value"} ${index + 1}`}
              value={scalarText(entry)}
              onChange={(event) => {
                const text = event.target.value;
                const next = scalar ? (parseScalar(text) ?? "") : text;
                update(items.map((old, at) => (at === index ? next : old)));
              }}
            />
          )}
          <RemoveButton onClick={() => update(items.filter((_, at) => at !== index))} />
        </div>
      ))}
      <AddButton
        onClick={() => {
          added();
          onChange([...items, itemOptions ? itemOptions[0] : ""]);
        }}
      />
    </div>
  );
}

/** A list of objects (or of a union's variants), one card per item. */
export function ObjectList({ id, context, path, field, value, required, onChange, union }) {
  const items = Array.isArray(value) ? value : [];
  const itemSchema = field.items ?? {};
  const update = (next) => onChange(next.length || required ? next : undefined);
  const variants = union ? unionVariants(itemSchema, context.root) : null;
  const { box, added } = useFocusAdded();
  return (
    <div className="pw-cards" role="group" aria-labelledby={`${id}-label`} ref={box}>
      {items.map((entry, index) => (
        <div className="pw-card" key={index} data-item="">
          <div className="pw-card-head">
            <span className="pw-card-number">{index + 1}</span>
            <RemoveButton
              label={`Remove ${index + 1}`}
              onClick={() => update(items.filter((_, at) => at !== index))}
            />
          </div>
          {variants ? (
            <UnionItem
              context={context}
              path={[...path, index]}
              variants={variants}
              value={entry}
              onChange={(next) => update(items.map((old, at) => (at === index ? next : old)))}
            />
          ) : (
            <ObjectFields
              context={context}
              path={[...path, index]}
              field={splitNullable(itemSchema, context.root).schema}
              value={entry}
              onChange={(next) => update(items.map((old, at) => (at === index ? next : old)))}
            />
          )}
        </div>
      ))}
      <AddButton
        onClick={() => {
          added();
          onChange([...items, defaultValue(itemSchema, context.root)]);
        }}
      />
    </div>
  );
}

/** One item of a union list: the variant's select, then its fields. */
function UnionItem({ context, path, variants, value, onChange }) {
  const { prop } = variants;
  const current =
    variants.variants.find((variant) => variant.tag === value?.[prop]) ?? variants.variants[0];
  const choose = (tag) => {
    const variant = variants.variants.find((option) => option.tag === tag);
    const fresh = defaultValue(variant.schema, context.root);
    for (const [name, old] of Object.entries(value ?? {})) {
      if (name !== prop && variant.schema.properties?.[name]) fresh[name] = old;
    }
    onChange({ ...fresh, [prop]: tag });
  };
  const selectId = `${context.idPrefix}-${path.join("-")}-${prop}`;
  return (
    <>
      <div className="pw-field">
        <label className="pw-label" htmlFor={selectId}>
          {current.schema.properties[prop]?.title ?? prop}
        </label>
        <select
          id={selectId}
          value={String(current.tag)}
          onChange={(event) => choose(event.target.value)}
        >
          {variants.variants.map((variant) => (
            <option key={String(variant.tag)} value={String(variant.tag)}>
              {variant.title ? `${variant.title} (${variant.tag})` : String(variant.tag)}
            </option>
          ))}
        </select>
        {current.description ? <p className="pw-hint">{current.description}</p> : null}
      </div>
      <ObjectFields
        context={context}
        path={path}
        field={current.schema}
        value={value}
        onChange={onChange}
        skip={prop}
        tag={current.tag}
      />
    </>
  );
}

/** An object field: its fields, or, while an optional one is unset, a button that opens them
 * (so that its required fields do not look required of every node), and one that removes it. */
export function OptionalObject(props) {
  const { id, context, path, field, value, onChange, required, nullable, title } = props;
  const [opened, setOpened] = useState(false);
  const optional = !required || nullable;
  if (foldedObject(value, required, nullable) && !opened) {
    if (context.readOnly) return <p className="pw-muted">Not set.</p>;
    return (
      <button type="button" id={id} className="pw-add" onClick={() => setOpened(true)}>
        + Set up {title.toLowerCase()} (optional)
      </button>
    );
  }
  return (
    <>
      <ObjectFields context={context} path={path} field={field} value={value} onChange={onChange} />
      {optional && !context.readOnly ? (
        <button
          type="button"
          className="pw-add"
          onClick={() => {
            setOpened(false);
            onChange(undefined);
          }}
        >
          Remove {title.toLowerCase()}
        </button>
      ) : null}
    </>
  );
}

/** An object's fields, but `skip` (a union's tag). */
export function ObjectFields({ context, path, field, value, onChange, skip, tag }) {
  const required = new Set(field.required ?? []);
  return (
    <div className="pw-object">
      {Object.entries(field.properties ?? {})
        .filter(([name]) => name !== skip)
        .map(([name, property]) => (
          <Field
            key={name}
            context={context}
            path={[...path, name]}
            aliases={tag !== undefined ? [pathKey([...path, tag, name])] : []}
            schema={property}
            value={value?.[name]}
            required={required.has(name)}
            onChange={(next) => onChange(setIn(value ?? {}, [name], next))}
          />
        ))}
    </div>
  );
}
