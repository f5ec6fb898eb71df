// The admin front end's entry (issue 18): mounts the app into index.html's #app.
import { render } from 'preact';
import { App } from './app.js';
import './styles.css';

const root = document.getElementById('app');
if (root) render(<App />, root);
