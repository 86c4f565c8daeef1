// The Settings screen is the picked app's page under Apps (decisions 20): its
// keys, settings, gateways, SMS credentials and pay-page template.
export { SettingsScreen } from './apps';
